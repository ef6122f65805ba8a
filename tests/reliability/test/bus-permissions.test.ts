// Least privilege on the bus: each service connects as its own NATS user and may publish its own
// subjects only. Connected as each service of the running system, the test tries every subject the
// contracts name (with a header that keeps JetStream from storing anything) and a durable consumer on
// another service's stream: what is not its own is refused, and the suite prints what each may publish.
// The services that watch a subject of another's stream may neither read it unfiltered nor delete its
// owner's consumers; and each service's Redis user is refused the game's hash and FLUSHALL.
import { execFileSync } from 'node:child_process';
import {
  BUS_USERS,
  busInboxPrefix,
  REDIS_USER_NAMES,
  STREAMS,
  SUBJECTS,
  type BusUserName,
} from '@omc/contracts';
import { AckPolicy, connect, DeliverPolicy } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import { figures, invariant, reportFigures, suite } from '../src/context.js';

afterAll(reportFigures);

const ALL_SUBJECTS = [...new Set(Object.values(SUBJECTS))];

/** Whether a NATS subject pattern (with * and >) matches a subject. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (s[i] === undefined || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

const refused = (error: unknown) =>
  (error as { code?: string }).code === 'PERMISSIONS_VIOLATION' ||
  /Permissions Violation/i.test(String((error as Error).message));

describe('least privilege on the bus', () => {
  it('refuses each service on every subject that is not its own, and on consumers of others', async () => {
    const { natsUrls } = suite();
    const lines: string[] = [];
    for (const name of Object.keys(BUS_USERS) as BusUserName[]) {
      const url = new URL(natsUrls[name]!);
      const nc = await connect({
        servers: `${url.hostname}:${url.port}`,
        user: decodeURIComponent(url.username),
        pass: decodeURIComponent(url.password),
        inboxPrefix: busInboxPrefix(name),
        name: `bus-permissions-${name}`,
      });
      const nats = { js: nc.jetstream(), jsm: await nc.jetstreamManager() };
      try {
        const allowed: string[] = [];
        for (const subject of ALL_SUBJECTS) {
          try {
            // A stream refuses (and stores nothing of) a message that expects another stream.
            await nats.js.publish(subject, '{}', { expect: { streamName: 'NO_SUCH_STREAM' }, timeout: 3000 });
            allowed.push(subject);
          } catch (error) {
            if (!refused(error)) allowed.push(subject);
          }
        }
        const own = ALL_SUBJECTS.filter((s) => BUS_USERS[name].publishes.some((p) => matches(p, s)));
        invariant(`${name} may publish exactly its own subjects`, allowed.join() === own.join(), {
          allowed,
          own,
        });
        expect(allowed).toEqual(own);
        // Reading another service's stream through a consumer of its own making is refused too.
        const foreign = Object.values(STREAMS).find((s) => s.name !== BUS_USERS[name].ownsStream)!;
        const snoop = await nats.jsm.consumers
          .add(foreign.name, { durable_name: `snoop-${name}`, ack_policy: AckPolicy.Explicit })
          .then(
            () => 'created',
            (error) => (refused(error) ? 'refused' : `failed: ${(error as Error).message}`),
          );
        invariant(`${name} may not add a consumer to ${foreign.name}`, snoop === 'refused', snoop);
        expect(snoop).toBe('refused');
        lines.push(
          `${name}: ${allowed.join(', ') || 'nothing'} (refused on the other ${ALL_SUBJECTS.length - allowed.length} subjects and on a consumer of ${foreign.name})`,
        );
      } finally {
        await nc.close();
      }
    }
    figures.busPermissions.push(...lines);
    expect(lines).toHaveLength(4);
  });

  it("refuses the watchers an unfiltered consumer on auth's stream and the deletion of another's consumer", async () => {
    const { natsUrls } = suite();
    for (const name of ['game', 'realtime'] as const) {
      const url = new URL(natsUrls[name]!);
      const nc = await connect({
        servers: `${url.hostname}:${url.port}`,
        user: decodeURIComponent(url.username),
        pass: decodeURIComponent(url.password),
        inboxPrefix: busInboxPrefix(name),
        name: `bus-permissions-watcher-${name}`,
      });
      try {
        const jsm = await nc.jetstreamManager();
        const outcome = (call: Promise<unknown>) =>
          call.then(
            () => 'allowed',
            (error) => (refused(error) ? 'refused' : `failed: ${(error as Error).message}`),
          );
        const unfiltered = await outcome(
          jsm.consumers.add(STREAMS.auth.name, {
            ack_policy: AckPolicy.None,
            deliver_policy: DeliverPolicy.New,
          }),
        );
        invariant(`${name} may not read AUTH_EVENTS unfiltered`, unfiltered === 'refused', unfiltered);
        expect(unfiltered).toBe('refused');
        for (const [stream, durable] of [
          [STREAMS.auth.name, 'auth-mail'],
          [STREAMS.auth.name, 'payments-users'],
        ] as const) {
          const deleted = await outcome(jsm.consumers.delete(stream, durable));
          invariant(`${name} may not delete ${durable}`, deleted === 'refused', deleted);
          expect(deleted).toBe('refused');
        }
      } finally {
        await nc.close();
      }
    }
  });

  it("refuses each service's Redis user the game's hash (but the game's) and FLUSHALL", () => {
    const { redisUrls } = suite();
    const cli = (url: string, ...args: string[]) => {
      try {
        return execFileSync('redis-cli', ['-u', url, '--no-auth-warning', ...args], {
          encoding: 'utf8',
        }).trim();
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? error).trim();
      }
    };
    for (const name of REDIS_USER_NAMES) {
      const url = redisUrls[name]!;
      const flush = cli(url, 'FLUSHALL');
      invariant(`${name}'s Redis user may not FLUSHALL`, flush.startsWith('NOPERM'), flush);
      expect(flush).toMatch(/^NOPERM/);
      // A field no one uses: refused to all but the game, whose hash it is.
      const write = cli(url, 'HSET', '{omc:game}:game', 'bus-permissions-probe', '1');
      if (name === 'game') cli(url, 'HDEL', '{omc:game}:game', 'bus-permissions-probe');
      else {
        invariant(`${name}'s Redis user may not write the game's hash`, write.startsWith('NOPERM'), write);
        expect(write).toMatch(/^NOPERM/);
      }
    }
  });
});
