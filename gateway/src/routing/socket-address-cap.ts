// How many tunnels one client address holds (or is dialling) at once through this gateway.
import { addressBudgetKey } from '@omc/service-kit';

export class AddressCap {
  /** Tunnels held (or being dialled) per budget key. */
  private readonly held = new Map<string, number>();

  /** `max` tunnels per address; 0 means no cap. */
  constructor(readonly max: number) {}

  /**
   * Takes a place for `address` at once, in the caller's turn, so a burst of upgrades cannot pass the
   * check together. Resolves to the place's release (safe to call more than once), or null when full.
   */
  take(address: string): (() => void) | null {
    // The cap's key: the address, or its /64 for IPv6.
    const budget = addressBudgetKey(address);
    const held = this.held.get(budget) ?? 0;
    if (this.max > 0 && held >= this.max) return null;
    this.held.set(budget, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(budget);
    };
  }

  private release(budget: string): void {
    const n = (this.held.get(budget) ?? 1) - 1;
    if (n <= 0) this.held.delete(budget);
    else this.held.set(budget, n);
  }
}
