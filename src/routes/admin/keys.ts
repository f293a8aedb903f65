import { z } from "zod";
import { defineRoute } from "../../http/route";
import { NewKeySchema, AdminKeySchema, AdminKeysSchema } from "./contracts";
import { unwrap } from "./results";
import { services } from "../../services";

const accountParams = z.object({ name: z.string().trim().min(1).max(100) });

export const createKeyRoute = defineRoute({
  method: "post",
  path: "/admin/accounts/{name}/keys",
  operationId: "adminCreateKey",
  summary: "Issue an API key (shown once)",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  params: accountParams,
  response: { status: 201, description: "The new key.", schema: NewKeySchema },
  handler: async (c, { params }) => unwrap(await services(c).controlPlane.keys.create(params.name)),
});

export const listKeysRoute = defineRoute({
  method: "get",
  path: "/admin/accounts/{name}/keys",
  operationId: "adminListKeys",
  summary: "List an account's keys",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  params: accountParams,
  response: { description: "Keys, oldest first.", schema: AdminKeysSchema },
  handler: async (c, { params }) => unwrap(await services(c).controlPlane.keys.list(params.name)),
});

export const revokeKeyRoute = defineRoute({
  method: "post",
  path: "/admin/keys/{id}/revoke",
  operationId: "adminRevokeKey",
  summary: "Revoke an API key",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  params: z.object({ id: z.coerce.number().int().positive().max(2_147_483_647, "is not a key id") }),
  response: { description: "The revoked key.", schema: AdminKeySchema },
  handler: async (c, { params }) => unwrap(await services(c).controlPlane.keys.revoke(params.id)),
});
