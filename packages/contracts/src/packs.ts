// Click packs (docs/client-contract.md). Prices in integer cents, EUR.
import { z } from 'zod';
import { centsToEuros, parseEuroAmount } from './common.js';

export const PACK_IDS = ['clicks100', 'clicks500', 'clicks1000', 'unlimited'] as const;
export const PackId = z.enum(PACK_IDS);
export type PackId = z.infer<typeof PackId>;

export interface Pack {
  id: PackId;
  /** Clicks credited for this round, or null for the unlimited pass. */
  clicks: number | null;
  priceCents: number;
}

export const PACKS: readonly Pack[] = Object.freeze([
  { id: 'clicks100', clicks: 100, priceCents: 99 },
  { id: 'clicks500', clicks: 500, priceCents: 199 },
  { id: 'clicks1000', clicks: 1000, priceCents: 499 },
  { id: 'unlimited', clicks: null, priceCents: 999 },
]);

export const CURRENCY = 'EUR';

/** The pack whose price is exactly this amount string ("0.99"), or undefined. */
export function packForAmount(amount: string): Pack | undefined {
  const cents = parseEuroAmount(amount);
  return cents === undefined ? undefined : PACKS.find((p) => p.priceCents === cents);
}

export function packById(id: PackId): Pack {
  return PACKS.find((p) => p.id === id)!;
}

export const PackView = z.union([
  z.object({
    id: PackId,
    clicks: z.number().int().positive(),
    price: z.number().positive(),
    currency: z.literal(CURRENCY),
  }),
  z.object({
    id: PackId,
    unlimited: z.literal(true),
    price: z.number().positive(),
    currency: z.literal(CURRENCY),
  }),
]);
export type PackView = z.infer<typeof PackView>;

export function packView(pack: Pack): PackView {
  const price = centsToEuros(pack.priceCents);
  return pack.clicks === null
    ? { id: pack.id, unlimited: true, price, currency: CURRENCY }
    : { id: pack.id, clicks: pack.clicks, price, currency: CURRENCY };
}
