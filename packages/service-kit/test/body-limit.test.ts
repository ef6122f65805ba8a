// A body declared over the limit is answered 413 before it is read, on a connection that stays open,
// so a client still sending reads the answer instead of a reset; an absurd one closes the connection.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
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

describe('headers over the limit', () => {
  // A client sends a huge header in pieces, as a slow link does, and reads what comes back.
  function sendHugeHeader(bytes: number) {
    return new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, async () => {
        socket.write('GET /echo HTTP/1.1\r\nHost: x\r\nX-Padding: ');
        const piece = 'a'.repeat(8 * 1024);
        for (let sent = 0; sent < bytes && socket.writable; sent += piece.length) {
          socket.write(piece);
          await new Promise((next) => setTimeout(next, 1));
        }
        if (socket.writable) socket.write('\r\n\r\n');
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => (text += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
    });
  }

  it('are answered 431 with a message even while the client is still sending', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const text = await sendHugeHeader(200 * 1024);
      expect(text).toMatch(/^HTTP\/1\.1 431 /);
      expect(text).toContain('Request headers are too large');
    }
  });

  it('are answered 431 to a client that sends them in one write', async () => {
    const statuses = new Set<number>();
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const answer = await fetch(`http://127.0.0.1:${port}/echo`, {
        method: 'POST',
        headers: { 'x-padding': 'a'.repeat(100_000) },
      }).then(
        (response) => response.status,
        () => 0,
      );
      statuses.add(answer);
    }
    expect([...statuses]).toEqual([431]);
  });
});
