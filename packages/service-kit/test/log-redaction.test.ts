// A log reader learns no secret: whatever a request carries in its query string or body, and any field
// named like a secret in a logged object, is written as "[redacted]" by the one logger every service and
// the gateway use.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, createServer } from '../src/index.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, log: createLogger('test', 'debug', {}, stream) };
}

describe('log redaction', () => {
  it("writes neither a request's query string nor its body nor a secret field", async () => {
    const { lines, log } = capture();
    const app = createServer({ name: 'test', log });
    app.get('/reset-password', async () => 'ok');
    app.post('/api/user/reset-password', async (request) => {
      request.log.info({ body: request.body }, 'reset asked');
      request.log.warn({ event: { data: { token: 'tok-in-event' } } }, 'event');
      log.info({ token: 'tok-top', user: { password: 'pw-nested' } }, 'service line');
      return { ok: true };
    });
    await app.ready();
    await app.inject({ method: 'GET', url: '/reset-password?token=tok-in-query&lang=en' });
    await app.inject({
      method: 'POST',
      url: '/api/user/reset-password?token=tok-in-query-2',
      payload: { token: 'tok-in-body', password: 'pw-in-body' },
      headers: { authorization: 'Bearer bearer-secret', cookie: 'refresh=cookie-secret' },
    });
    await app.close();
    const text = lines.join('');
    // The requests were logged (the test would pass vacuously otherwise), by path.
    expect(text).toContain('/reset-password?[redacted]');
    expect(text).toContain('reset asked');
    for (const secret of [
      'tok-in-query',
      'tok-in-query-2',
      'tok-in-body',
      'pw-in-body',
      'tok-in-event',
      'tok-top',
      'pw-nested',
      'bearer-secret',
      'cookie-secret',
    ])
      expect(text, secret).not.toContain(secret);
  });
});
