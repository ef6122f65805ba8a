import { describe, expect, it } from 'vitest';
import { ApiClientError } from '../../api/http';
import { BUSY_ATTEMPTS, busyDelayMs, withBusyRetry } from './busyRetry';

const busy = () => new ApiClientError(503, 'busy', { json: true, retryAfterS: 1 });

describe('retrying a click the flooded game refused', () => {
  it('waits longer after each refusal, never less than Retry-After, never more than 15 s unless told to', () => {
    // A click sent before its Retry-After is refused again by the gateway (429, RETRY_TOO_SOON).
    expect(busyDelayMs(1, 1, () => 0)).toBe(1000);
    expect(busyDelayMs(1, 1, () => 1)).toBe(1500);
    expect(busyDelayMs(3, 2, () => 0)).toBe(8000);
    expect(busyDelayMs(10, 5, () => 1)).toBe(15_000);
    expect(busyDelayMs(1, 30, () => 0)).toBe(30_000);
  });

  it('takes a refusal for retrying too soon as busy, and waits what it was told', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withBusyRetry(
      async () => {
        calls += 1;
        if (calls === 1)
          throw new ApiClientError(429, 'too soon', { json: true, retryAfterS: 4, code: 'RETRY_TOO_SOON' });
        return 'ok';
      },
      () => undefined,
      async (ms) => void waits.push(ms),
    );
    expect(result).toBe('ok');
    expect(waits[0]).toBeGreaterThanOrEqual(4000);
  });

  it('reports busy while waiting, then not busy once the click goes through', async () => {
    const states: boolean[] = [];
    const waits: number[] = [];
    let calls = 0;
    const result = await withBusyRetry(
      async () => {
        calls += 1;
        if (calls < 3) throw busy();
        return 'ok';
      },
      (b) => states.push(b),
      async (ms) => void waits.push(ms),
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
    expect(states).toEqual([true, true, false]);
    expect(waits).toHaveLength(2);
  });

  it('gives up after a few attempts, and does not retry what is not a busy refusal', async () => {
    let calls = 0;
    await expect(
      withBusyRetry(
        async () => {
          calls += 1;
          throw busy();
        },
        () => undefined,
        async () => undefined,
      ),
    ).rejects.toBeInstanceOf(ApiClientError);
    expect(calls).toBe(BUSY_ATTEMPTS);
    calls = 0;
    await expect(
      withBusyRetry(
        async () => {
          calls += 1;
          throw new ApiClientError(429, 'too fast');
        },
        () => undefined,
        async () => undefined,
      ),
    ).rejects.toMatchObject({ status: 429 });
    expect(calls).toBe(1);
  });
});
