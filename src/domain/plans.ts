/** Plan ids as stored on subscriptions. */
export type PlanId = "trial" | "basic";

export interface PlanLimits {
  requestsPerMinute: number;
  concurrency: number;
  maxRows: number;
  historyDays: number;
  activeKeys: number;
  batchQuoteSymbols: number;
  flowSymbols: number;
}

export interface Plan {
  id: PlanId;
  name: string;
  priceMonthlyUsd: number;
  trialDays: number | null;
  limits: PlanLimits;
}

/** Both plans have identical limits (spec: General rule 5 and Limits). */
const LIMITS: PlanLimits = {
  requestsPerMinute: 300,
  concurrency: 5,
  maxRows: 250,
  historyDays: 7,
  activeKeys: 5,
  batchQuoteSymbols: 20,
  flowSymbols: 20,
};

/** The plan catalogue: the one table that limits, entitlement and `/public/plans` read. */
export const PLANS: readonly Plan[] = [
  { id: "trial", name: "Free trial", priceMonthlyUsd: 0, trialDays: 14, limits: LIMITS },
  { id: "basic", name: "Basic", priceMonthlyUsd: 49, trialDays: null, limits: LIMITS },
];

export function planById(id: string | null | undefined): Plan | undefined {
  return PLANS.find((p) => p.id === id);
}
