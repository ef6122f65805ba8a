// A refresh loop against every way a session ends: a thief holding a copy of the session's refresh cookie
// refreshes as fast as auth answers while the owner (or an admin) ends the session. No chain may survive:
// after the ending, the last cookie the loop got is refused, the session holds no live refresh token, and
// the ending was announced (auth.session.ended.v1). A suspension's sessions stay ended after a restore.
// `npm test` runs each way 10 rounds, in two files (session-end-race-*.test.ts) that two workers run side by
// side; `npm run test:chaos` runs every way 50 rounds (session-end-race.chaos.test.ts).
import { SUBJECTS } from '@omc/contracts';
import type { SunkMail } from '@omc/testkit';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueRefreshToken } from '../src/sessions/refresh-tokens.js';
import {
  ADMIN,
  bearer,
  freshIp,
  loginToken,
  refreshCookieOf,
  register,
  startAuth,
  type AuthHarness,
} from './support.js';

/** The account whose session ends, as its owner holds it (a token of another session, the password). */
interface Owner {
  id: string;
  email: string;
  password: string;
  token: string;
}

interface Round {
  owner: Owner;
  /** The thief's copy: a refresh cookie of the session that is to end. */
  cookie: string;
  /** The session that is to end. */
  sessionId: string;
}

type Answer = { statusCode: number; body: string; json(): any };

interface Way {
  name: string;
  /** A new account every round (the ending spends it); otherwise one account serves every round. */
  freshAccount?: boolean;
  /** Prepares what the ending needs before the loop starts (a mailed link); returns the ending itself. */
  prepare(round: Round): Promise<() => Promise<Answer>>;
  /** Runs after the ending (a restore after a suspension). */
  after?(round: Round, ending: Answer): Promise<void>;
}

/** The names of the ways a session ends, as `sessionEndRace` takes them. */
export type WayName =
  | 'logout'
  | 'end one session'
  | 'sign out everywhere'
  | 'password change'
  | 'password reset'
  | 'email change undo'
  | 'refresh-token reuse'
  | 'suspension'
  | 'account deletion';

/** The race against each of the named ways, `rounds` rounds each. */
export const sessionEndRace = (names: readonly WayName[], rounds: number) =>
  describe('a refresh in flight never survives the end of its session', () => {
    let h: AuthHarness;
    let adminToken: string;
    beforeAll(async () => {
      h = await startAuth({
        // Any second use of a rotated token is reuse: the reuse way presents one the loop rotated.
        REFRESH_REUSE_GRACE_MS: '0',
        RESET_MAX_PER_ADDRESS: '0',
        RESET_MAX_PER_IP: '0',
        EMAIL_CHANGE_MAX_PER_ACCOUNT: '0',
      });
      adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
    });
    afterAll(async () => {
      await h?.close();
    });

    const inject = (method: string, url: string, token?: string, payload?: object) =>
      h.app.inject({
        method: method as 'POST',
        url,
        ...(payload ? { payload } : {}),
        headers: { ...(token ? bearer(token) : {}), 'x-forwarded-for': freshIp() },
      });
    const refresh = (cookie: string) =>
      h.app.inject({ method: 'POST', url: '/api/user/refresh', cookies: { omc_refresh: cookie } });
    const tokenOf = (mail: SunkMail) => new URL(mail.link!).searchParams.get('token')!;

    const allWays: (Way & { name: WayName })[] = [
      {
        name: 'logout',
        prepare: async (round) => () =>
          h.app.inject({
            method: 'POST',
            url: '/api/user/refresh/logout',
            cookies: { omc_refresh: round.cookie },
          }),
      },
      {
        name: 'end one session',
        prepare: async (round) => () =>
          inject('DELETE', `/api/user/sessions/${round.sessionId}`, round.owner.token),
      },
      {
        name: 'sign out everywhere',
        prepare: async (round) => () => inject('DELETE', '/api/user/sessions', round.owner.token),
        after: async (round, ending) => {
          round.owner.token = ending.json().token;
        },
      },
      {
        name: 'password change',
        prepare: async (round) => () =>
          inject('PUT', '/api/user/change-password', round.owner.token, {
            currentPassword: round.owner.password,
            newPassword: `${round.owner.password.slice(0, 40)}-n`,
          }),
        after: async (round, ending) => {
          round.owner.password = `${round.owner.password.slice(0, 40)}-n`;
          round.owner.token = ending.json().token;
        },
      },
      {
        name: 'password reset',
        freshAccount: true,
        prepare: async (round) => {
          expect(
            (await inject('POST', '/api/user/forgot-password', undefined, { email: round.owner.email }))
              .statusCode,
          ).toBe(202);
          const mail = await h.mail.waitFor(round.owner.email, (m) =>
            Boolean(m.link?.includes('/reset-password?')),
          );
          return () =>
            inject('POST', '/api/user/reset-password', undefined, {
              token: tokenOf(mail),
              newPassword: 'reset-password-9',
            });
        },
      },
      {
        name: 'email change undo',
        freshAccount: true,
        prepare: async (round) => {
          const moved = `moved_${round.owner.email}`;
          // Signed in a moment ago: the change needs no password.
          const change = await inject('PUT', '/api/user/change-email', round.owner.token, { email: moved });
          expect(change.statusCode).toBe(200);
          const mail = await h.mail.waitFor(round.owner.email, (m) =>
            Boolean(m.link?.includes('/undo-email-change?')),
          );
          return () => inject('POST', '/api/user/undo-email-change', undefined, { token: tokenOf(mail) });
        },
      },
      {
        name: 'refresh-token reuse',
        // The owner's browser presents the cookie the thief's loop has rotated since.
        prepare: async (round) => () => refresh(round.cookie),
      },
      {
        name: 'suspension',
        prepare: async (round) => () =>
          inject('POST', `/api/admin/users/${round.owner.id}/suspend`, adminToken, { reason: 'race test' }),
        after: async (round) => {
          const restored = await inject('POST', `/api/admin/users/${round.owner.id}/restore`, adminToken, {
            reason: 'race test over',
          });
          expect(restored.statusCode).toBe(200);
        },
      },
      {
        name: 'account deletion',
        freshAccount: true,
        prepare: async (round) => () => inject('DELETE', '/api/user/delete-account', round.owner.token),
      },
    ];

    const ways = allWays.filter((way) => names.includes(way.name));
    it.each(ways.map((way) => [way.name, way] as const))(
      `%s: ${rounds} rounds against a refresh loop, 0 survivors`,
      async (_name, way) => {
        const survivors: string[] = [];
        const ended: string[] = [];
        let owner: Owner | undefined;
        for (let i = 0; i < rounds; i++) {
          if (!owner || way.freshAccount) {
            const registered = await register(h.app);
            owner = { ...registered, token: registered.token };
          }
          // The session the thief copied: started as a login starts one (the password is not the point).
          const thief = await issueRefreshToken(h.deps.db, owner.id, h.deps.clock(), {
            ttlSeconds: 3600,
            reuseGraceMs: 0,
          });
          const round: Round = { owner, cookie: thief.token, sessionId: thief.familyId };
          const end = await way.prepare(round);

          // The thief's loop: each answer's cookie is the next one presented, until one is refused.
          let cookie = round.cookie;
          let rotations = 0;
          let stop = false;
          let firstRotation!: () => void;
          const rotated = new Promise<void>((resolve) => (firstRotation = resolve));
          const loop = (async () => {
            while (!stop) {
              const answer = await refresh(cookie);
              const next = answer.statusCode === 200 ? refreshCookieOf(answer) : undefined;
              if (!next) break;
              cookie = next;
              rotations += 1;
              firstRotation();
            }
            firstRotation();
          })();
          await rotated;
          const ending = await end();
          expect(ending.statusCode, `${way.name}: ${ending.body}`).toBeLessThan(500);
          stop = true;
          await loop;
          await way.after?.(round, ending);

          const kept = await refresh(cookie);
          const live = await h.deps.db
            .selectFrom('refresh_tokens')
            .select('id')
            .where('family_id', '=', round.sessionId)
            .where('revoked_at', 'is', null)
            .execute();
          if (kept.statusCode === 200 || live.length > 0)
            survivors.push(
              `round ${i}: refresh ${kept.statusCode}, ${live.length} live tokens, ${rotations} rotations`,
            );
          ended.push(round.sessionId);
        }
        expect(survivors, `${way.name}: sessions that survived their end`).toEqual([]);
        await eventually(() => {
          const announced = new Set(h.events.of(SUBJECTS.sessionEnded).map((e) => e.data.sessionId));
          return ended.every((id) => announced.has(id));
        }, `every ended session announced (${way.name})`);
      },
      600_000,
    );
  });
