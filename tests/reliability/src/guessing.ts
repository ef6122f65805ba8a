// Password guessing as an attacker does it: wrong passwords for one account, each from a new
// X-Forwarded-For address, until the login guard locks the account (429).
import { figures, invariant } from './context.js';
import { call, type Player } from './http.js';

/** Guesses up to `tries` wrong passwords; how many were evaluated (401) before a lock-out, if any. */
export async function guess(
  target: Player,
  tries: number,
  baseUrl?: string,
): Promise<{ guesses: number; locked: boolean }> {
  let guesses = 0;
  for (let i = 0; i < tries; i++) {
    figures.attacks += 1;
    // A new X-Forwarded-For each time, as a botnet (or a client forging the header) would present.
    const answer = await call('POST', '/api/user/login', {
      body: { emailOrUsername: target.username, password: `wrong-${i}` },
      headers: { 'x-forwarded-for': `198.51.100.${(i % 250) + 1}` },
      ...(baseUrl ? { baseUrl } : {}),
    });
    if (answer.status === 429) {
      invariant(
        'the lock-out says to try again later',
        typeof answer.body?.message === 'string' && /try again/i.test(answer.body.message),
        answer.body,
      );
      return { guesses, locked: true };
    }
    invariant('a wrong password is a 401', answer.status === 401, answer.status);
    guesses += 1;
  }
  return { guesses, locked: false };
}
