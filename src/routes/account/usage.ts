import { z } from "zod";
import { planById } from "../../domain/plans";
import { defineRoute } from "../../http/route";
import { STREAM_LIMITS } from "../../streams/limits";

export const UsageSchema = z.object({
  plan: z.string().nullable(),
  subscription_status: z.string().nullable(),
  entitled: z.boolean(),
  date: z.iso.date().describe("Current ET date; the counting day of `requests.today`."),
  rate_limit: z.object({ requests_per_minute: z.int() }).nullable().describe("Null without an active plan."),
  concurrency: z.object({ max: z.int() }).nullable().describe("Null without an active plan."),
  requests: z
    .object({
      today: z.int().describe("Requests admitted today (ET), this one included."),
      reset_at: z.iso.datetime().describe("Next ET midnight, UTC."),
      reset_unix: z.int().describe("The same instant in epoch seconds."),
    })
    .nullable()
    .describe("Null without an active plan."),
  streams: z
    .object({
      open: z.int().describe("WebSocket and SSE streams of `/v1/stream` open now."),
      max: z.int().describe(`Streams the account may hold at once (${STREAM_LIMITS.streamsPerAccount}).`),
      subscriptions_per_stream: z.int(),
    })
    .describe("Not in the spec's table: the account's push streams."),
});
export type Usage = z.infer<typeof UsageSchema>;

export const usageRoute = defineRoute({
  method: "get",
  path: "/v1/usage",
  operationId: "getUsage",
  summary: "Account usage and limits",
  description: "Needs only a valid key; no subscription required.",
  tags: ["Account"],
  access: "key",
  caching: "per-request",
  response: { description: "Usage of the key's account.", schema: UsageSchema },
  handler: async (c) => {
    const { accountId, entitlement, usage } = c.get("account");
    const open = await c.env.STREAM_HUB.getByName(String(accountId)).openStreams();
    const plan = entitlement.entitled ? planById(entitlement.plan) : undefined;
    return {
      plan: entitlement.plan,
      subscription_status: entitlement.subscriptionStatus,
      entitled: entitlement.entitled,
      date: usage.date,
      rate_limit: plan ? { requests_per_minute: plan.limits.requestsPerMinute } : null,
      concurrency: plan ? { max: plan.limits.concurrency } : null,
      requests: plan ? { today: usage.today, reset_at: usage.resetAt, reset_unix: Math.floor(Date.parse(usage.resetAt) / 1000) } : null,
      streams: { open, max: STREAM_LIMITS.streamsPerAccount, subscriptions_per_stream: STREAM_LIMITS.subscriptionsPerStream },
    };
  },
});
