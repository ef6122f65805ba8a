// The ports the suites and npm start listen on (freePort): below the range the kernel takes outgoing
// connections' source ports from, so no client connection can take one between its choice and the
// listen (a game instance once failed its start with EADDRINUSE that way), never one `fetch` refuses to
// reach (a service given 10080 was never seen ready), and never the same twice.
import { FETCH_BAD_PORTS, freePort } from '@omc/infra';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';

const ephemeralLow = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range, each free to listen on', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 200; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
    }
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });

  it('never hands out a port fetch refuses, even when chance picks one', async () => {
    for (const bad of FETCH_BAD_PORTS) {
      await expect(fetch(`http://127.0.0.1:${bad}/readyz`)).rejects.toMatchObject({
        cause: { message: 'bad port' },
      });
      // Math.random's first draw lands on the bad port; the next one is taken instead.
      vi.spyOn(Math, 'random').mockReturnValueOnce((bad - 10_000 + 0.5) / (ephemeralLow - 10_000));
      const port = await freePort();
      expect(port).not.toBe(bad);
      vi.restoreAllMocks();
    }
  });
});
