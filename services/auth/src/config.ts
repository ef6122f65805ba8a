import { baseEnvSchema, env, parseConfig, retentionEnvSchema, serviceKeysEnvSchema } from '@omc/service-kit';
import { EmailField, PasswordField, UsernameField } from '@omc/contracts';
import { z } from 'zod';

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

export const configSchema = baseEnvSchema
  .extend({
    ...retentionEnvSchema.shape,
    // Auth's internal routes are called by payments alone.
    ...serviceKeysEnvSchema.pick({ SERVICE_PRIVATE_KEY: true, PAYMENTS_SERVICE_PUBLIC_KEY: true }).shape,
    /** auth's HTTP port. */
    PORT: env.port(3001),
    /** PEM of the Ed25519 private key auth signs access tokens with. */
    JWT_PRIVATE_KEY: env.pem('PRIVATE'),
    /** The game, asked for the profile's click balance and told of account deletions. */
    GAME_URL: env.url(['http', 'https']).default('http://127.0.0.1:3002'),
    /** The game's internal listener (its INTERNAL_PORT), where auth tells it of a role change. */
    GAME_INTERNAL_URL: env.url(['http', 'https']).default('http://127.0.0.1:3012'),
    /** Payments, asked for the profile's winnings and payout email. */
    PAYMENTS_URL: env.url(['http', 'https']).default('http://127.0.0.1:3003'),
    /** How long the profile and delete-account calls wait for game and payments. */
    UPSTREAM_TIMEOUT_MS: env.int(800, 50, 30_000),
    /** The first admin, created at the first start on an empty database (set all three or none). */
    BOOTSTRAP_ADMIN_USERNAME: optionalText,
    /** The first admin's email. */
    BOOTSTRAP_ADMIN_EMAIL: optionalText,
    /** The first admin's password. */
    BOOTSTRAP_ADMIN_PASSWORD: optionalText,
    /** Secure attribute of the refresh cookie; on by default in production (NODE_ENV=production). */
    COOKIE_SECURE: z.enum(['true', 'false', '1', '0', 'yes', 'no']).optional(),
    /** production turns the Secure cookie attribute on unless COOKIE_SECURE says otherwise. */
    NODE_ENV: z.string().default('development'),
    /**
     * Proxies in front of auth whose X-Forwarded-For entries are believed (the gateway: 1). The client
     * address the brute-force limits count is the entry the nearest trusted proxy added.
     */
    TRUST_PROXY_HOPS: env.int(1, 0, 10),
    /** How long a refresh token (and so a session) lives without use. */
    REFRESH_TTL_SECONDS: env.int(7 * 24 * 3600, 60, 90 * 24 * 3600),
    /** A rotated refresh token presented again within this time (another tab racing) is not treated as theft. */
    REFRESH_REUSE_GRACE_MS: env.int(5000, 0, 60_000),
    /** Login brute-force limits: failures counted in fixed windows; a limit reached locks for LOGIN_LOCKOUT_MS. */
    LOGIN_WINDOW_MS: env.int(15 * 60_000, 100, 24 * 3600_000),
    /** How long a login limit, once reached, refuses further attempts. */
    LOGIN_LOCKOUT_MS: env.int(15 * 60_000, 100, 24 * 3600_000),
    /** Failed logins from one client address per LOGIN_WINDOW_MS (0: no limit). */
    LOGIN_MAX_FAILURES_PER_IP: env.int(30, 0),
    /** Failures for one account from one IP: the tight limit. */
    LOGIN_MAX_FAILURES_PER_ACCOUNT_IP: env.int(5, 0),
    /** Failures for one account from every IP together: the loose limit against distributed guessing. */
    LOGIN_MAX_FAILURES_PER_ACCOUNT: env.int(50, 0),
    /** Registrations per IP and window (0: no limit, e.g. for load tests from one host). */
    REGISTER_MAX_PER_IP: env.int(100, 0),
    /** Where account mail is sent (the development catcher by default; smtps:// for TLS, user:pass@ for auth). */
    SMTP_URL: env.url(['smtp', 'smtps']).default('smtp://127.0.0.1:1025'),
    /** The From of account mail. */
    MAIL_FROM: z.string().trim().min(3).default('One Million Clicks <no-reply@localhost>'),
    /** The web app's public address: links in mails point at it. */
    PUBLIC_WEB_URL: env.url(['http', 'https']).default('http://localhost:8080'),
    /** A mail the server refused or could not take is tried again within this, the bound doubling up to MAIL_RETRY_MAX_MS (jittered). */
    MAIL_RETRY_BASE_MS: env.int(2_000, 10, 3600_000),
    /** The longest wait between two attempts to send one mail. */
    MAIL_RETRY_MAX_MS: env.int(10 * 60_000, 10, 24 * 3600_000),
    /** How long a sent mail is kept (its text holds the links it carried), then deleted. */
    MAIL_RETENTION_HOURS: env.int(24, 1, 24 * 90),
    /** How long one SMTP conversation may take before it counts as failed (and is retried). */
    SMTP_TIMEOUT_MS: env.int(15_000, 100, 120_000),
    /** Minutes a password-reset link stays valid. */
    PASSWORD_RESET_TTL_MINUTES: env.int(30, 1, 24 * 60),
    /** Password-reset requests per address and per IP in RESET_WINDOW_MS; past them, 429. */
    RESET_WINDOW_MS: env.int(60 * 60_000, 100, 24 * 3600_000),
    /** Password-reset requests per email address per RESET_WINDOW_MS. */
    RESET_MAX_PER_ADDRESS: env.int(3, 0),
    /** Password-reset requests per client address per RESET_WINDOW_MS. */
    RESET_MAX_PER_IP: env.int(20, 0),
    /** Hours an email-verification link stays valid. */
    VERIFICATION_TTL_HOURS: env.int(48, 1, 30 * 24),
    /** Verification mails one account may ask for again per RESET_WINDOW_MS; past it, 429. */
    RESEND_MAX_PER_ACCOUNT: env.int(3, 0),
    /** Hours the link mailed to a new address confirms an email change. */
    EMAIL_CHANGE_TTL_HOURS: env.int(24, 1, 30 * 24),
    /** Days the old address may undo an email change (before and after it is confirmed). */
    EMAIL_CHANGE_UNDO_DAYS: env.int(7, 1, 90),
    /** Email changes one account may ask for per RESET_WINDOW_MS (each mails two addresses); past it, 429. */
    EMAIL_CHANGE_MAX_PER_ACCOUNT: env.int(3, 0),
    /**
     * Requests that send mail (verification, reset, email change, payout email) one account may make per
     * RESET_WINDOW_MS, all kinds together; past it, 429.
     */
    MAIL_MAX_PER_ACCOUNT: env.int(10, 0),
    /** Mails one address may be sent per RESET_WINDOW_MS, all kinds together; past it, 429. */
    MAIL_MAX_PER_ADDRESS: env.int(6, 0),
    /**
     * Seconds after signing in with a password during which an email or payout-email change, or an
     * admin's two-admin request or approval, needs no password again; later, the current password is asked for.
     */
    REAUTH_WINDOW_SECONDS: env.int(300, 0, 3600),
    /**
     * Hours a two-admin request (a grant of superuser or admin, a house payout) waits for a second admin;
     * then it expires and nothing is done.
     */
    APPROVAL_TTL_HOURS: env.int(24, 1, 7 * 24),
    /** How long an approved house payout waits for payments' answer before saying it is still in progress. */
    HOUSE_PAYOUT_TIMEOUT_MS: env.int(30_000, 1000, 120_000),
    /**
     * Hours the old address may still undo an email change once it is confirmed (the change then
     * settles); an unconfirmed change stays undoable until its confirm link expires.
     */
    EMAIL_CHANGE_UNDO_AFTER_CONFIRM_HOURS: env.int(72, 1, 90 * 24),
  })
  .superRefine((c, ctx) => {
    const admin = [c.BOOTSTRAP_ADMIN_USERNAME, c.BOOTSTRAP_ADMIN_EMAIL, c.BOOTSTRAP_ADMIN_PASSWORD];
    const given = admin.filter((v) => v !== undefined).length;
    if (given !== 0 && given !== 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['BOOTSTRAP_ADMIN_USERNAME'],
        message:
          'BOOTSTRAP_ADMIN_USERNAME, BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD must be set together, or none of them',
      });
      return;
    }
    const checks = [
      ['BOOTSTRAP_ADMIN_USERNAME', UsernameField, c.BOOTSTRAP_ADMIN_USERNAME],
      ['BOOTSTRAP_ADMIN_EMAIL', EmailField, c.BOOTSTRAP_ADMIN_EMAIL],
      ['BOOTSTRAP_ADMIN_PASSWORD', PasswordField, c.BOOTSTRAP_ADMIN_PASSWORD],
    ] as const;
    for (const [name, field, value] of checks) {
      if (value === undefined) continue;
      const result = field.safeParse(value);
      if (!result.success)
        ctx.addIssue({ code: 'custom', path: [name], message: result.error.issues[0]?.message ?? 'invalid' });
    }
  })
  .transform((c) => ({
    ...c,
    cookieSecure:
      c.COOKIE_SECURE === undefined
        ? c.NODE_ENV === 'production'
        : ['true', '1', 'yes'].includes(c.COOKIE_SECURE),
    bootstrapAdmin:
      c.BOOTSTRAP_ADMIN_USERNAME && c.BOOTSTRAP_ADMIN_EMAIL && c.BOOTSTRAP_ADMIN_PASSWORD
        ? {
            username: c.BOOTSTRAP_ADMIN_USERNAME,
            email: c.BOOTSTRAP_ADMIN_EMAIL,
            password: c.BOOTSTRAP_ADMIN_PASSWORD,
          }
        : null,
  }));

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(configSchema as unknown as z.ZodObject, source) as Readonly<
    z.infer<typeof configSchema>
  >;
}
