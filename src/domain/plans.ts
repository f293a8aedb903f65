import { z } from "zod";

/** Plan ids as stored on subscriptions. */
export type PlanId = "trial" | "basic" | "internal";

/** What a plan allows: the one shape the limiter, the control plane and `/public/plans` read. */
export const PlanLimitsSchema = z.object({
  requestsPerMinute: z.int(),
  concurrency: z.int(),
  maxRows: z.int(),
  historyDays: z.int(),
  activeKeys: z.int(),
  batchQuoteSymbols: z.int(),
  flowSymbols: z.int(),
});
export type PlanLimits = z.infer<typeof PlanLimitsSchema>;

/** A plan as `/public/plans` lists it. */
export const PublicPlanSchema = z.object({
  id: z.string(),
  name: z.string(),
  priceMonthlyUsd: z.number(),
  trialDays: z.int().nullable().describe("Length of the once-per-account trial; null for paid plans."),
  limits: PlanLimitsSchema,
});

export interface Plan extends z.infer<typeof PublicPlanSchema> {
  id: PlanId;
  /** Listed on `/public/plans` and offered to customers; unlisted plans are granted by the operator only. */
  listed: boolean;
}

/** The limits of both customer plans (spec: General rule 5 and Limits). */
export const STANDARD_LIMITS: PlanLimits = {
  requestsPerMinute: 300,
  concurrency: 5,
  maxRows: 250,
  historyDays: 7,
  activeKeys: 5,
  batchQuoteSymbols: 20,
  flowSymbols: 20,
};

/**
 * The plan catalogue: the one table that limits, entitlement, the control plane, handlers and
 * `/public/plans` read. `internal` (our own monitoring and benchmarks) is never listed or sold.
 */
export const PLANS: readonly Plan[] = [
  { id: "trial", name: "Free trial", priceMonthlyUsd: 0, trialDays: 14, listed: true, limits: STANDARD_LIMITS },
  { id: "basic", name: "Basic", priceMonthlyUsd: 49, trialDays: null, listed: true, limits: STANDARD_LIMITS },
  {
    id: "internal",
    name: "Internal",
    priceMonthlyUsd: 0,
    trialDays: null,
    listed: false,
    limits: { ...STANDARD_LIMITS, requestsPerMinute: 6_000, concurrency: 12, maxRows: 1_000, activeKeys: 10 },
  },
];

export const TRIAL_PLAN = PLANS.find((p) => p.trialDays !== null) as Plan;

export function planById(id: string | null | undefined): Plan | undefined {
  return PLANS.find((p) => p.id === id);
}

/**
 * The limits that apply to an account: its plan's, or the standard ones for an account without a
 * catalogued plan (it can still call verify and usage, which are rate-limited like any route).
 */
export function limitsFor(planId: string | null | undefined): PlanLimits {
  return planById(planId)?.limits ?? STANDARD_LIMITS;
}
