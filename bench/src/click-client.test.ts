// The open-loop generator's HTTP client against a real node:http server: answers read whole (length or
// chunks), connections reused and bounded, a silent server's click failing at its timeout, a closed
// port failing its click instead of retrying forever.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClickClient, parseAnswer, type ClickAnswer } from './click-client.js';

const servers: Server[] = [];
const clients: ClickClient[] = [];

async function serve(
  handler: Parameters<typeof createServer>[1],
): Promise<{ origin: string; server: Server }> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function client(origin: string, connections = 4, timeoutMs = 2000): ClickClient {
  const c = new ClickClient({ origin, path: '/api/game/click', connections, timeoutMs });
  clients.push(c);
  return c;
}

const click = (c: ClickClient, token: string) =>
  new Promise<ClickAnswer>((resolve, reject) =>
    c.click(token, (error, answer) => (error ? reject(error) : resolve(answer!))),
  );

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('click client', () => {
  it('sends the token and reads each answer whole, over at most its connections', async () => {
    const seen: string[] = [];
    const sockets = new Set<unknown>();
    const { origin } = await serve((req, res) => {
      sockets.add(req.socket);
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      const refused = seen.length % 3 === 0;
      res.writeHead(refused ? 503 : 200, {
        'content-type': 'application/json',
        ...(refused ? { 'retry-after': '1' } : {}),
      });
      res.end(JSON.stringify(refused ? { message: 'busy' } : { globalClicks: seen.length }));
    });
    const c = client(origin, 3);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => click(c, `t${i % 2}`)));
    expect(seen).toHaveLength(30);
    expect(seen[0]).toBe('POST /api/game/click Bearer t0');
    expect(sockets.size).toBeLessThanOrEqual(3);
    expect(
      answers.filter((a) => a.status === 503).every((a) => a.retryAfter && a.body.includes('busy')),
    ).toBe(true);
    expect(answers.filter((a) => a.status === 200).every((a) => /"globalClicks":\d+/.test(a.body))).toBe(
      true,
    );
  });

  it('reads a chunked answer', async () => {
    const { origin } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"globalClicks":');
      res.end('42}');
    });
    const answer = await click(client(origin), 'x');
    expect(answer).toEqual({ status: 200, body: '{"globalClicks":42}', retryAfter: false });
  });

  it('fails a click the server never answers, at its timeout, and keeps serving the next', async () => {
    let n = 0;
    const { origin } = await serve((_req, res) => {
      if (++n === 1) return; // the first click hangs
      res.end('ok');
    });
    const c = client(origin, 2, 300);
    const started = performance.now();
    await expect(click(c, 'a')).rejects.toThrow();
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect((await click(c, 'a')).body).toBe('ok');
  });

  it('fails a click whose connection is refused, without retrying it', async () => {
    const { origin, server } = await serve(() => undefined);
    await new Promise((r) => server.close(r));
    servers.length = 0;
    await expect(click(client(origin), 'a')).rejects.toThrow();
  });

  it('parses an answer only once it is whole', () => {
    const whole = Buffer.from(
      'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(parseAnswer(whole.subarray(0, 20))).toBeUndefined();
    expect(parseAnswer(whole.subarray(0, whole.length - 1))).toBeUndefined();
    expect(parseAnswer(whole)).toEqual({
      answer: { status: 503, body: '{}', retryAfter: true },
      length: whole.length,
      close: false,
    });
    expect(() => parseAnswer(Buffer.from('garbage\r\n\r\n'))).toThrow();
  });
});
