// Access tokens already verified, by their exact text. A player sends the same token with every click
// for up to 15 minutes: its claims are kept until it expires or for 5 minutes, so the signature check,
// the decoding and the claims' schema run once per token rather than once per request. The exact text
// is the key, signature included, so only the very token that was verified is taken on trust; a token
// that failed is never kept (a bad one is checked, and refused, each time). At most `max` are kept, the
// oldest dropped first.
import type { AccessTokenClaims } from '@omc/contracts';

export class VerifiedTokens {
  private readonly entries = new Map<string, { claims: AccessTokenClaims; until: number }>();

  constructor(
    private readonly max: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The claims of `token` if it was verified and has neither expired nor outstayed the TTL. */
  get(token: string): AccessTokenClaims | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.claims;
    this.entries.delete(token);
    return undefined;
  }

  /** Keeps the claims of a token that was just verified, until it expires or for the TTL. */
  set(token: string, claims: AccessTokenClaims): void {
    const until = Math.min(this.now() + this.ttlMs, claims.exp * 1000);
    if (until <= this.now()) return;
    this.entries.delete(token);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { claims, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
