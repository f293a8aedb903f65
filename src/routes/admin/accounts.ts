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

export const createAccountRoute = defineRoute({
  method: "post",
  path: "/admin/accounts",
  operationId: "adminCreateAccount",
  summary: "Create an account",
  tags: ["Admin"],
  access: "admin",
  body: z.object({
    name: accountName,
    status: status.or(z.literal("none")).optional(),
    plan: z.string().min(1).max(40).optional(),
    trialEnded: z.boolean().optional(),
  }),
  response: { status: 201, description: "Created." },
  handler: async (c, { body }) => unwrap(await services(c).controlPlane.accounts.create(body)),
});

export const getAccountRoute = defineRoute({
  method: "get",
  path: "/admin/accounts/{name}",
  operationId: "adminGetAccount",
  summary: "Show an account",
  tags: ["Admin"],
  access: "admin",
  params: z.object({ name: accountName }),
  response: { description: "The account." },
  handler: async (c, { params }) => unwrap(await services(c).controlPlane.accounts.view(params.name)),
});

export const setSubscriptionRoute = defineRoute({
  method: "put",
  path: "/admin/accounts/{name}/subscription",
  operationId: "adminSetSubscription",
  summary: "Set an account's subscription",
  tags: ["Admin"],
  access: "admin",
  params: z.object({ name: accountName }),
  body: z.object({ status, plan: z.string().min(1).max(40).optional(), trialEnded: z.boolean().optional() }),
  response: { description: "The account after the change." },
  handler: async (c, { params, body }) => unwrap(await services(c).controlPlane.subscriptions.set({ account: params.name, ...body })),
});
