import { z } from "zod";
import { SUBSCRIPTION_STATUSES } from "../../domain/subscription-status";
import { defineRoute } from "../../http/route";
import { unwrap } from "./results";
import { services } from "../../services";

const accountName = z
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

export const createAccountRoute = defineRoute({
  method: "post",
  path: "/admin/accounts",
  operationId: "adminCreateAccount",
  summary: "Create an account",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  body: CreateAccountBody,
  response: { status: 201, description: "Created.", schema: AdminAccountSchema },
  handler: async (c, { body }) => unwrap(await services(c).controlPlane.accounts.create(body)),
});

export const getAccountRoute = defineRoute({
  method: "get",
  path: "/admin/accounts/{name}",
  operationId: "adminGetAccount",
  summary: "Show an account",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  params: z.object({ name: accountName }),
  response: { description: "The account.", schema: AdminAccountSchema },
  handler: async (c, { params }) => unwrap(await services(c).controlPlane.accounts.view(params.name)),
});

export const setSubscriptionRoute = defineRoute({
  method: "put",
  path: "/admin/accounts/{name}/subscription",
  operationId: "adminSetSubscription",
  summary: "Set an account's subscription",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  params: z.object({ name: accountName }),
  body: SetSubscriptionBody,
  response: { description: "The account after the change.", schema: AdminAccountSchema },
  handler: async (c, { params, body }) => unwrap(await services(c).controlPlane.subscriptions.set({ account: params.name, ...body })),
});
