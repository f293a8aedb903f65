import { z } from "zod";
import { PLANS, PublicPlanSchema } from "../../domain/plans";
import { defineRoute } from "../../http/route";

export const PlansSchema = z.object({ plans: z.array(PublicPlanSchema) });
export type Plans = z.infer<typeof PlansSchema>;

export const plansRoute = defineRoute({
  method: "get",
  path: "/public/plans",
  operationId: "listPlans",
  summary: "Plans, prices and limits",
  tags: ["Meta"],
  access: "public",
  caching: "per-request",
  response: { description: "Plans offered to customers.", schema: PlansSchema },
  handler: (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return { plans: PLANS.filter((p) => p.listed).map(({ listed: _listed, ...plan }) => plan) };
  },
});
