// The game takes back what a refunded purchase gave (its clicks or pass, its pot share while the round is
// in play), once per purchase, on its internal listener: with the refunding admin's own token during the
// admin's request; without one when payments finishes the refund in the background, and the game then
// asks payments whether that refund's money went back (GET /internal/refunds/:id) before it takes back.
// The answer names what it took, and the same on every call, so a lost answer is asked again without harm.
import { INTERNAL, type InternalTakeBack, type InternalTakeBackRequest } from '@omc/contracts';
import { outcomeReason, type Caller, type InternalClient } from '@omc/service-kit';

export class GameTakeBack {
  constructor(private readonly internal: InternalClient) {}

  /** Throws when the game does not answer, or answers anything but what it took. */
  async takeBack(caller: Caller | undefined, purchase: InternalTakeBackRequest): Promise<InternalTakeBack> {
    const taken = await this.internal.call(INTERNAL.takeBack, {
      params: { id: purchase.purchaseId },
      body: purchase,
      ...(caller ? { caller } : {}),
    });
    if (taken.kind !== 'answered') throw new Error(`the game did not take back: ${outcomeReason(taken)}`);
    return taken.data;
  }
}
