// The HTTP API as an OpenAPI 3.1 document, generated from the route catalogue (routes.ts) and its zod
// schemas, so the description cannot say something the servers do not validate. The gateway serves it
// at /api/openapi.json; `packages/contracts/test/openapi.test.ts` lints it with Redocly's rules and the
// client-contract suite checks every live answer it sees against it.
import { z } from 'zod';
import { ErrorBody } from './common.js';
import { ERROR_CODES, ERRORS } from './errors.js';
import { ROUTES, type RouteContract } from './routes.js';
import { SOCKET_EVENTS, SOCKET_PATH } from './socket.js';

type JsonSchema = Record<string, unknown>;

/** One line per operation, as an integrator reads it in the rendered docs. */
const SUMMARIES: Record<string, string> = {
  'POST /api/user/login': 'Sign in with an email or username and a password',
  'POST /api/user/register': 'Create an account and sign in',
  'POST /api/user/refresh': 'Trade the refresh cookie for a new access token',
  'POST /api/user/refresh/logout':
    'Sign out this browser: ends the session of its refresh cookie, or of the access token sent with it',
  'GET /api/user/profile': 'The signed-in account, its balances and winnings',
  'PUT /api/user/change-language': 'Set the preferred language',
  'PUT /api/user/change-email': 'Ask to change the account email (confirmed by a mailed link)',
  'PUT /api/user/change-password': 'Change the password (ends the other sessions)',
  'PUT /api/user/change-username': 'Change the username',
  'DELETE /api/user/delete-account': 'Delete the account (refused while winnings are uncollected)',
  'POST /api/user/forgot-password': 'Mail a password reset link',
  'POST /api/user/reset-password': 'Set a new password with a mailed reset token',
  'POST /api/user/verify-email': 'Verify the account email with a mailed token',
  'POST /api/user/confirm-email': 'Confirm an email change with a mailed token',
  'POST /api/user/undo-email-change': 'Undo an email change from the link mailed to the old address',
  'POST /api/user/resend-verification': 'Mail a new verification link',
  'GET /api/user/sessions': 'The signed-in sessions of this account',
  'DELETE /api/user/sessions': 'Sign out everywhere else',
  'DELETE /api/user/sessions/:id': 'End one session',
  'GET /api/admin/users':
    'Every account with its role; with query, cursor or limit, a searchable page with status (admin)',
  'POST /api/admin/users/:id/suspend': 'Suspend an account: it cannot sign in, click, buy or collect (admin)',
  'POST /api/admin/users/:id/restore': 'Lift a suspension (admin)',
  'GET /api/admin/audit': 'The audit log, newest first, filtered and paged (admin)',
  'POST /api/admin/updateRole':
    "Change an account's role (admin); a grant of superuser or admin opens a request a second admin approves",
  'GET /api/admin/approvals': 'The two-admin requests, newest first (admin)',
  'POST /api/admin/approvals/:id/approve': "Approve another admin's request and carry it out (admin)",
  'POST /api/admin/approvals/:id/refuse': "Refuse another admin's request; nothing is done (admin)",
  'GET /api/game/state': 'The round as everyone sees it: counter, pot, last winner, last clicker',
  'GET /api/game/rules': 'The round target, milestones and click packs with prices',
  'GET /api/game/profile': "The caller's click balance",
  'POST /api/game/click': 'Click once (spends one click unless the caller clicks for free)',
  'GET /api/winners': 'Past winners, newest first',
  'GET /api/payments/token': 'A Braintree client token for the drop-in',
  'GET /api/payments/profile': "The caller's winnings, payout email and (admin) house balance",
  'POST /api/payments/checkout': 'Buy a click pack with a Braintree payment method nonce',
  'POST /api/winners/setPaymentMethod':
    'Ask to pay winnings to a PayPal email (pending until confirmed from the account email)',
  'POST /api/winners/confirm-payout-email':
    'Confirm a new PayPal email with the token mailed to the account email',
  'POST /api/winners/collect': 'Pay the uncollected winnings out to PayPal',
  'POST /api/admin/collect':
    'Ask to pay the house pot out to PayPal (admin): paid once a second admin approves',
  'POST /api/admin/purchases/:id/refund':
    'Refund a purchase (void when not settled), once, taking back its clicks and pot share (admin)',
  'GET /api/admin/purchases':
    "A player's purchases with their provider ids and refunds, newest first (admin)",
  'GET /api/admin/payouts': "A player's payouts with their PayPal batch ids, newest first (admin)",
  'POST /api/payments/webhooks/braintree': 'Braintree webhook (settlement, disputes): called by the provider',
};

const TAGS: Record<RouteContract['service'], { name: string; description: string }> = {
  auth: { name: 'accounts', description: 'Accounts, sessions and roles (services/auth)' },
  game: { name: 'game', description: 'The round, clicks and winners (services/game)' },
  payments: { name: 'payments', description: 'Purchases, winnings and payouts (services/payments)' },
};

const RATE_LIMITS =
  'Every /api request counts against a per-address budget (`RATE_LIMIT_PER_IP` a minute at the ' +
  'gateway, 6000 by default); clicks also have a per-player and per-address rate ' +
  '(`CLICK_RATE_PER_USER`, default 20 a second). Over a budget the answer is 429 with the error body.';

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without the top-level `$schema`. */
/** The error codes of contracts (errors.ts), each with its status and message where they are fixed. */
function errorCodeSchema(): JsonSchema {
  const lines = ERROR_CODES.map((code) => {
    const { status, message, meaning } = ERRORS[code] as {
      status?: number;
      message?: string;
      meaning: string;
    };
    return `- \`${code}\`${status ? ` (${status})` : ''}: ${message ?? meaning}`;
  });
  return { type: 'string', enum: ERROR_CODES, description: ['Every error code:', ...lines].join('\n') };
}

/** The error body, its `code` one of the list. */
function errorBodySchema(): JsonSchema {
  const schema = jsonSchemaOf(ErrorBody, 'output') as { properties: Record<string, unknown> };
  return {
    ...schema,
    properties: { ...schema.properties, code: { $ref: '#/components/schemas/ErrorCode' } },
  };
}

export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
}

/** `/api/user/sessions/:id` -> `/api/user/sessions/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

function operationId(route: RouteContract): string {
  const words = route.path
    .replace(/^\/api\//, '')
    .split(/[/_:-]+/)
    .filter(Boolean);
  return [
    route.method.toLowerCase(),
    ...words.map((w) => w[0]!.toUpperCase() + w.slice(1)),
    ...(route.path.includes(':') ? ['ById'] : []),
  ].join('');
}

function parameters(route: RouteContract): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = jsonSchemaOf(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

const errorRef = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});

function responses(route: RouteContract): JsonSchema {
  const out: JsonSchema = {};
  const statuses = route.successStatuses ?? [200];
  for (const status of statuses)
    out[String(status)] = {
      description: { 200: 'Success', 201: 'Created', 202: 'Accepted: done, with a caveat in the message' }[
        status
      ],
      content: { 'application/json': { schema: jsonSchemaOf(route.response, 'output') } },
    };
  if (route.body || route.query || route.params || route.auth === 'providerSignature')
    out['400'] = errorRef('Bad input: the message names the field');
  if (route.auth === 'user' || route.auth === 'admin' || route.auth === 'refreshCookie')
    out['401'] = errorRef('No valid token (or refresh cookie)');
  if (route.auth === 'admin') out['403'] = errorRef('The caller is not an admin');
  out['429'] = errorRef('Over a rate limit; try again later');
  out['default'] = errorRef('Any other refusal (4xx) or failure (5xx), with the same error body');
  return out;
}

function security(route: RouteContract): JsonSchema[] {
  switch (route.auth) {
    case 'user':
    case 'admin':
      return [{ bearer: [] }];
    case 'optional':
      return [{ bearer: [] }, {}];
    case 'refreshCookie':
      return [{ refreshCookie: [] }];
    default:
      return [];
  }
}

function operation(route: RouteContract): JsonSchema {
  const key = `${route.method} ${route.path}`;
  const summary = SUMMARIES[key];
  if (!summary) throw new Error(`No summary for ${key}: add one to SUMMARIES in openapi.ts`);
  const params = parameters(route);
  const body = route.body
    ? {
        requestBody: {
          required: true,
          content: {
            [route.bodyType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json']: {
              schema: jsonSchemaOf(route.body, 'input'),
            },
          },
        },
      }
    : {};
  return {
    operationId: operationId(route),
    summary,
    ...(route.auth === 'admin' ? { description: 'Admins only: anyone else gets 403.' } : {}),
    tags: [TAGS[route.service].name],
    security: security(route),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...body,
    responses: responses(route),
  };
}

/** The OpenAPI 3.1 document of every route in the catalogue. */
export function buildOpenApiDocument(options: { version?: string } = {}): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of ROUTES) {
    const path = openApiPath(route.path);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'One Million Clicks API',
      version: options.version ?? '1.0.0',
      summary: 'One shared button, a global counter and a pot; the last click of a round wins it.',
      description: [
        'Amounts sent to and from browsers are euros (`pot: 12.5`); inside the system money is integer cents.',
        '',
        'Errors: every refusal is a JSON body with the same text under `message`, `error` and `msg`, a',
        '`code`, the `field` a 400 is about, and the `requestId` to quote to an operator.',
        '',
        `Rate limits: ${RATE_LIMITS}`,
        '',
        `Live events: a Socket.IO connection at \`${SOCKET_PATH}\` (websocket transport), described in the`,
        '`x-socket-events` section of this document and at `/api/asyncapi.json`.',
      ].join('\n'),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'One Million Clicks operators' },
    },
    servers: [{ url: '/', description: 'The gateway that serves this document' }],
    tags: Object.values(TAGS),
    security: [],
    paths,
    components: {
      schemas: { ErrorBody: errorBodySchema(), ErrorCode: errorCodeSchema() },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The access token from login, register or refresh (15 minutes).',
        },
        refreshCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'omc_refresh',
          description: 'The httpOnly refresh cookie set by login and register (Path=/api/user/refresh).',
        },
      },
    },
    'x-socket-events': socketEvents(),
  };
}

/** The server-to-browser events of the live connection, from the same schemas. */
function socketEvents(): JsonSchema {
  return Object.fromEntries(
    Object.entries(SOCKET_EVENTS).map(([name, schema]) => [name, jsonSchemaOf(schema, 'output')]),
  );
}

const SOCKET_DESCRIPTIONS: Record<keyof typeof SOCKET_EVENTS, string> = {
  gameStateUpdate:
    'The whole game state, to every socket (guests too), coalesced to a fixed tick (BROADCAST_HZ).',
  winner: 'A round was won: who won it and the pot, in euros.',
  userCountUpdate: 'Connected sockets across every realtime instance; also repeated periodically.',
  profileStamp:
    "On connect, to a signed-in socket: changes whenever the player's profile may have; a reconnecting client re-reads the profile only when it differs.",
  move: 'The instance is going away: the connection closes next; reconnect (to another instance) without showing an error.',
};

/** The live connection as an AsyncAPI 3.0 document: the server sends, the browser only listens. */
export function buildAsyncApiDocument(options: { version?: string } = {}): JsonSchema {
  const names = Object.keys(SOCKET_EVENTS) as (keyof typeof SOCKET_EVENTS)[];
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'One Million Clicks live events',
      version: options.version ?? '1.0.0',
      description: `Socket.IO at \`${SOCKET_PATH}\`, websocket transport, no token needed. The browser sends nothing.`,
    },
    servers: {
      gateway: { host: 'localhost:8080', protocol: 'ws', pathname: SOCKET_PATH },
    },
    channels: {
      live: {
        address: SOCKET_PATH,
        messages: Object.fromEntries(names.map((n) => [n, { $ref: `#/components/messages/${n}` }])),
      },
    },
    operations: Object.fromEntries(
      names.map((n) => [
        `receive${n[0]!.toUpperCase()}${n.slice(1)}`,
        {
          action: 'receive',
          channel: { $ref: '#/channels/live' },
          messages: [{ $ref: `#/channels/live/messages/${n}` }],
        },
      ]),
    ),
    components: {
      messages: Object.fromEntries(
        names.map((n) => [
          n,
          {
            name: n,
            summary: SOCKET_DESCRIPTIONS[n],
            contentType: 'application/json',
            payload: jsonSchemaOf(SOCKET_EVENTS[n], 'output'),
          },
        ]),
      ),
    },
  };
}
