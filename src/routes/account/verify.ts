import { z } from "zod";
import { ENTITLEMENT_REASONS } from "../../domain/entitlement-reasons";
import { defineRoute } from "../../http/route";

export const VerifySchema = z.object({
  key_id: z.int().describe("Identifier of the key."),
  key_prefix: z.string().describe("First 16 characters of the key."),
  status: z.literal("authenticated"),
  plan: z.string().nullable().describe("Plan id (e.g. `basic`), returned even if the subscription is inactive."),
  subscription_status: z.string().nullable().describe("Payment-provider status, e.g. `active`, `trialing`, `past_due`."),
  entitled: z.boolean(),
  entitlement_reason: z.enum(["", ...ENTITLEMENT_REASONS]).describe("Reason code when not entitled; empty string when entitled."),
});
export type Verify = z.infer<typeof VerifySchema>;

export const verifyRoute = defineRoute({
  method: "get",
  path: "/v1/auth/verify",
  operationId: "verifyKey",
  summary: "Verify an API key",
  description: "Needs only a valid key; no subscription required.",
  tags: ["Account"],
  access: "key",
  caching: "per-request",
  response: { description: "The key and its account's entitlement.", schema: VerifySchema },
  handler: (c) => {
    const { keyId, keyPrefix, entitlement } = c.get("account");
    return {
      key_id: keyId,
      key_prefix: keyPrefix,
      status: "authenticated" as const,
      plan: entitlement.plan,
      subscription_status: entitlement.subscriptionStatus,
      entitled: entitlement.entitled,
      entitlement_reason: entitlement.reason,
    };
  },
});
