// A Postgres that stalls (every process of it paused by SIGSTOP, as a node swapping or frozen looks) does
// not take the winners list down: past a bounded wait a pod answers with the last list it read, and a pod
// that never read one answers 503 with Retry-After at once instead of hanging. Once Postgres resumes, the
// list is read from it again. The click that closes a round while Postgres stalls is answered once its
// win's write passed WIN_CONFIRM_TIMEOUT_MS: accepted, without `won`, and the win is recorded on return.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, withDescendants } from '@omc/infra';
import { eventually, workspaceRoot } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness } from './support.js';

const TARGET = 3;

describe('a stalled Postgres', () => {
  const dir = join(workspaceRoot(), '.data', 'test', `game-pg-stall-${process.pid}`);
  let postgres: Awaited<ReturnType<typeof startPostgres>>;
  let h: Harness;
  let stopped: number[] = [];
  const resume = () => {
    for (const pid of [...stopped].reverse()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Already gone.
      }
    }
    stopped = [];
  };

  beforeAll(async () => {
    // A Postgres of this file's own, so the test may pause it.
    postgres = await startPostgres(dir);
    h = await startGame({
      name: 'pg-stall',
      instances: 2,
      env: {
        DATABASE_URL: postgres.url,
        ROUND_TARGET: String(TARGET),
        MILESTONES: '',
        WINNERS_READ_TIMEOUT_MS: '300',
        // The production bound, which the closing click outlasts while Postgres is paused.
        WIN_CONFIRM_TIMEOUT_MS: '1000',
      },
    });
  });
  afterAll(async () => {
    resume();
    await h?.close();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the last winners list it read, and a pod that read none answers 503 at once', async () => {
    const player = await h.registerUser();
    for (let i = 0; i < TARGET; i++) expect((await h.click(player)).statusCode).toBe(200);
    // The win is recorded in Postgres once the round's end is flushed.
    const before = (await eventually(async () => {
      const response = await h.app.inject('/api/winners');
      return response.statusCode === 200 && response.json().winners.length === 1 ? response : undefined;
    }, 'the win listed'))!;
    expect(before.json().winners).toMatchObject([{ round: 1, userId: { username: player.username } }]);

    stopped = withDescendants(postgres.pid);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    try {
      const during = await h.app.inject('/api/winners');
      expect(during.statusCode).toBe(200);
      expect(during.json()).toEqual(before.json());
      // Again, while the first read is still waiting on Postgres.
      expect((await h.app.inject('/api/winners')).json()).toEqual(before.json());

      const never = await h.apps[1]!.inject('/api/winners');
      expect(never.statusCode).toBe(503);
      expect(never.headers['retry-after']).toBeDefined();
      expect(never.json().message).toMatch(/winners list.*unavailable/i);
    } finally {
      resume();
    }

    // Back by itself: the pod that had no list reads one from Postgres again.
    const back = await eventually(async () => {
      const response = await h.apps[1]!.inject('/api/winners');
      return response.statusCode === 200 ? response.json() : undefined;
    }, 'the winners list read again');
    expect(back).toEqual(before.json());
  });

  it('answers the closing click after its bound, not won, and records the win once Postgres is back', async () => {
    const player = await h.registerUser();
    stopped = withDescendants(postgres.pid);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    let closing: { round?: number; globalClicks?: number; won?: boolean } = {};
    try {
      const answers: Awaited<ReturnType<Harness['click']>>[] = [];
      for (let i = 0; i < TARGET; i++) answers.push(await h.click(player));
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(TARGET).fill(200));
      closing = answers.at(-1)!.json();
    } finally {
      resume();
    }
    // Its win could not be confirmed within the bound: an accepted click, its round the second.
    expect(closing).toMatchObject({ round: 2, globalClicks: TARGET });
    expect(closing.won).toBeUndefined();
    const listed = await eventually(async () => {
      const response = await h.apps[1]!.inject('/api/winners');
      const winners = response.statusCode === 200 ? response.json().winners : [];
      return winners.find((winner: { round: number }) => winner.round === 2);
    }, 'the second win listed');
    expect(listed).toMatchObject({ userId: { username: player.username } });
  });
});
