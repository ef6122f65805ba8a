// A body declared over the limit is answered 413 before it is read, on a connection that stays open,
// so a client still sending reads the answer instead of a reset; an absurd one closes the connection.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type App } from '../src/index.js';

let app: App;
let port: number;

beforeAll(async () => {
  app = createServer({ name: 'limits', logger: false, bodyLimit: 1024 });
  app.post('/echo', async (request) => ({ got: request.body }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(() => app.close());

function post(headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; connection?: string; json: any }>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/echo', headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            json: JSON.parse(text),
          }),
        );
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('declared body over the limit', () => {
  it('is a 413 with a message, and the connection is kept', async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(64 * 1024) });
    const answer = await post(
      { 'content-type': 'application/json', 'content-length': String(body.length), connection: 'keep-alive' },
      body,
    );
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({
      message: 'Request body is too large',
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    });
    expect(answer.connection).not.toBe('close');
  });

  it('closes the connection when the declared body is too large to drain', async () => {
    const answer = await post({ 'content-type': 'application/json', 'content-length': String(1024 ** 3) });
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
  });

  it('lets a body within the limit through', async () => {
    const answer = await post({ 'content-type': 'application/json', connection: 'keep-alive' }, '{"a":1}');
    expect(answer).toMatchObject({ status: 200, json: { got: { a: 1 } } });
  });
});
