import { z } from "zod";
import { defineRoute } from "../../http/route";
import { accountName, AdminAccountSchema, CreateAccountBody, SetSubscriptionBody } from "./contracts";
import { unwrap } from "./results";
import { services } from "../../services";

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
