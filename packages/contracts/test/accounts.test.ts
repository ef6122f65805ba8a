// The account routes' and mail events' shapes: what a client may send, and what travels on NATS.
import { describe, expect, it } from 'vitest';
import {
  ForgotPasswordRequest,
  makeEvent,
  parseEvent,
  ResetPasswordRequest,
  ROUTES,
  SessionIdParams,
  SessionsResponse,
  SUBJECTS,
  VerifyEmailRequest,
} from '../src/index.js';

describe('account contracts', () => {
  it('catalogues every account route', () => {
    const listed = ROUTES.map((r) => `${r.method} ${r.path}`);
    for (const route of [
      'POST /api/user/forgot-password',
      'POST /api/user/reset-password',
      'GET /api/user/sessions',
      'DELETE /api/user/sessions',
      'DELETE /api/user/sessions/:id',
      'POST /api/user/verify-email',
      'POST /api/user/resend-verification',
    ])
      expect(listed).toContain(route);
  });

  it('takes an email for a forgotten password and refuses anything else', () => {
    expect(ForgotPasswordRequest.parse({ email: 'Ana@Example.com' }).email).toBeTruthy();
    expect(ForgotPasswordRequest.safeParse({ email: 'not an email' }).success).toBe(false);
    expect(ForgotPasswordRequest.safeParse({}).success).toBe(false);
  });

  it('bounds the mailed token and checks the new password like registration does', () => {
    expect(ResetPasswordRequest.safeParse({ token: 'abc', newPassword: 'good-password' }).success).toBe(true);
    expect(ResetPasswordRequest.safeParse({ token: '', newPassword: 'good-password' }).success).toBe(false);
    expect(
      ResetPasswordRequest.safeParse({ token: 'a'.repeat(513), newPassword: 'good-password' }).success,
    ).toBe(false);
    expect(ResetPasswordRequest.safeParse({ token: 'abc', newPassword: '1' }).success).toBe(false);
  });

  it('names sessions by uuid', () => {
    expect(SessionIdParams.safeParse({ id: 'not-a-session' }).success).toBe(false);
    const id = crypto.randomUUID();
    expect(SessionIdParams.parse({ id }).id).toBe(id);
    const now = new Date().toISOString();
    SessionsResponse.parse({
      sessions: [
        { id, device: 'Firefox 128 on Linux', ip: null, createdAt: now, lastUsedAt: now, current: true },
      ],
    });
  });

  it('round-trips the password reset events, which name the request and carry no token', () => {
    const userId = crypto.randomUUID();
    const requestId = crypto.randomUUID();
    const requested = makeEvent(SUBJECTS.passwordResetRequested, {
      userId,
      email: 'a@example.com',
      language: 'fr',
      requestId,
      expiresAt: new Date().toISOString(),
    });
    const parsed = parseEvent(SUBJECTS.passwordResetRequested, JSON.stringify(requested)).data;
    expect(parsed).toMatchObject({ language: 'fr', requestId });
    const done = makeEvent(SUBJECTS.passwordReset, { userId, email: 'a@example.com', language: 'es' });
    expect(parseEvent(SUBJECTS.passwordReset, JSON.stringify(done)).data.userId).toBe(userId);
    const verification = makeEvent(SUBJECTS.verificationRequested, {
      userId,
      email: 'a@example.com',
      language: 'pt',
    });
    expect(parseEvent(SUBJECTS.verificationRequested, JSON.stringify(verification)).data.email).toBe(
      'a@example.com',
    );
    expect(VerifyEmailRequest.safeParse({ token: '' }).success).toBe(false);
    expect(() =>
      makeEvent(SUBJECTS.passwordResetRequested, { userId, email: 'a@example.com', language: 'es' } as never),
    ).toThrow();
  });

  it("reads events of older auth, which carried the links' tokens, without their tokens", () => {
    const userId = crypto.randomUUID();
    const at = new Date().toISOString();
    const old = (subject: string, data: object) =>
      JSON.stringify({ id: crypto.randomUUID(), subject, occurredAt: at, data });
    const reset = parseEvent(
      SUBJECTS.passwordResetRequested,
      old(SUBJECTS.passwordResetRequested, {
        userId,
        email: 'a@example.com',
        language: 'es',
        token: 'live-reset-token',
        expiresAt: at,
      }),
    ).data;
    expect(JSON.stringify(reset)).not.toContain('live-reset-token');
    expect(reset.requestId).toBeUndefined();
    const change = parseEvent(
      SUBJECTS.emailChangeRequested,
      old(SUBJECTS.emailChangeRequested, {
        userId,
        oldEmail: 'a@example.com',
        newEmail: 'b@example.com',
        language: 'es',
        confirmToken: 'live-confirm-token',
        expiresAt: at,
        undoToken: 'live-undo-token',
        undoExpiresAt: at,
      }),
    ).data;
    expect(JSON.stringify(change)).not.toMatch(/live-/);
    const verification = parseEvent(
      SUBJECTS.verificationRequested,
      old(SUBJECTS.verificationRequested, {
        userId,
        email: 'a@example.com',
        language: 'es',
        token: 'live.signed-token',
        expiresAt: at,
      }),
    ).data;
    expect(JSON.stringify(verification)).not.toContain('live.signed-token');
  });
});
