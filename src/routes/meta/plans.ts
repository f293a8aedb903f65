import { z } from "zod";
import { PLANS } from "../../domain/plans";
import { defineRoute } from "../../http/route";

export const PlansSchema = z.object({
  plans: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      priceMonthlyUsd: z.number(),
      trialDays: z.int().nullable().describe("Length of the once-per-account trial; null for paid plans."),
      limits: z.object({
        requestsPerMinute: z.int(),
        concurrency: z.int(),
        maxRows: z.int(),
        historyDays: z.int(),
        activeKeys: z.int(),
        batchQuoteSymbols: z.int(),
        flowSymbols: z.int(),
      }),
    }),
  ),
});
export type Plans = z.infer<typeof PlansSchema>;

export const plansRoute = defineRoute({
  method: "get",
  path: "/public/plans",
  operationId: "listPlans",
  summary: "Plans, prices and limits",
  tags: ["Meta"],
  access: "public",
  response: { description: "Plans offered to customers.", schema: PlansSchema },
  handler: (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return { plans: PLANS.filter((p) => p.listed).map(({ listed: _listed, ...plan }) => plan) };
  },
});
