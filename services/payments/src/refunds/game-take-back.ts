// The game takes back what a refunded purchase gave (its clicks or pass, its pot share while the round is
// in play), once per purchase, on its internal listener: with the refunding admin's own token during the
// admin's request; without one when payments finishes the refund in the background, and the game then
// asks payments whether that refund's money went back (GET /internal/refunds/:id) before it takes back.
// The answer names what it took, and the same on every call, so a lost answer is asked again without harm.
import { InternalTakeBack, internalTakeBackPath, type InternalTakeBackRequest } from '@omc/contracts';
import { forwardedHeaders, type Caller, type ServiceCredentials } from '@omc/service-kit';

export interface GameTakeBackOptions {
  gameInternalUrl: string;
  timeoutMs: number;
  credentials: ServiceCredentials;
}

export class GameTakeBack {
  constructor(private readonly options: GameTakeBackOptions) {}

  /** Throws when the game does not answer, or answers anything but what it took. */
  async takeBack(caller: Caller | undefined, purchase: InternalTakeBackRequest): Promise<InternalTakeBack> {
    const response = await fetch(
      `${this.options.gameInternalUrl}${internalTakeBackPath(purchase.purchaseId)}`,
      {
        method: 'POST',
        headers: {
          ...(caller ? forwardedHeaders(caller) : {}),
          ...this.options.credentials.headersFor('game'),
          'content-type': 'application/json',
        },
        body: JSON.stringify(purchase),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      },
    );
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the game answered ${response.status}`);
    }
    return InternalTakeBack.parse(await response.json());
  }
}
