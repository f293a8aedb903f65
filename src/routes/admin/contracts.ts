import { z } from "zod";
import { SUBSCRIPTION_STATUSES } from "../../domain/subscription-status";

/** The admin API's bodies and answers: the routes validate and describe them, the Node admin client types its calls by them. */
export const accountName = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\w.@-]+$/, "letters, digits, . @ _ - only");
const status = z.enum(SUBSCRIPTION_STATUSES);
const plan = z.string().min(1).max(40);

export const CreateAccountBody = z.object({
  name: accountName,
  status: status.or(z.literal("none")).optional(),
  plan: plan.optional(),
  trialEnded: z.boolean().optional(),
});
export type CreateAccountInput = z.input<typeof CreateAccountBody>;

export const SetSubscriptionBody = z.object({ status, plan: plan.optional(), trialEnded: z.boolean().optional() });
export type SetSubscriptionInput = z.input<typeof SetSubscriptionBody>;

export const AdminAccountSchema = z.object({
  id: z.int(),
  name: z.string(),
  createdAt: z.string(),
  subscription: z.object({ plan: z.string(), status: z.string(), trialEnd: z.string().nullable() }).nullable(),
});
export type AdminAccount = z.infer<typeof AdminAccountSchema>;

export const NewKeySchema = z.object({ id: z.int(), key: z.string().describe("Shown once."), prefix: z.string() });
export type NewKey = z.infer<typeof NewKeySchema>;

export const AdminKeySchema = z.object({ id: z.int(), prefix: z.string(), createdAt: z.string(), revokedAt: z.string().nullable() });
export type AdminKey = z.infer<typeof AdminKeySchema>;

export const AdminKeysSchema = z.array(AdminKeySchema);
export type AdminKeys = z.infer<typeof AdminKeysSchema>;

export const SnapshotRefreshSchema = z.object({ version: z.number(), asOf: z.string().nullable() });
export type SnapshotRefresh = z.infer<typeof SnapshotRefreshSchema>;

export const StreamWakeSchema = z.object({ shards: z.number().describe("Flow shards told of the commit.") });
export type StreamWake = z.infer<typeof StreamWakeSchema>;
