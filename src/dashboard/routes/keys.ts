import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { DashboardEnv } from "../env";
import { limitsFor } from "../../domain/plans";
import { page, requireSession, type DashboardContext } from "../middleware";
import { keysPage, messagePage, revokePage } from "../pages";
import { accountActionLimit } from "../throttle";
import { services } from "../../services";
import { usageSnippets } from "../../reference/usage-snippets";

async function keysList(
  c: DashboardContext,
  options: { created?: { key: string; prefix: string }; error?: string } = {},
  status: ContentfulStatusCode = 200,
) {
  const session = c.get("session");
  const control = services(c).controlPlane;
  const [list, view] = await Promise.all([control.keys.list(session.accountName), control.accounts.view(session.accountName)]);
  const maxActive = limitsFor(view.ok ? view.value.subscription?.plan : undefined).activeKeys;
  // The key, shown once, comes with the three ways to use it at this very address.
  const created = options.created && { ...options.created, snippets: usageSnippets(new URL(c.req.url).origin, options.created.key) };
  return page(c, keysPage(list.ok ? list.value : [], { ...options, created, maxActive }), status);
}

/** The session's own key with this id, or undefined (another account's key is as unknown as a missing one). */
async function ownKey(c: DashboardContext) {
  const id = c.req.param("id") ?? "";
  if (!/^\d{1,9}$/.test(id)) return undefined;
  const list = await services(c).controlPlane.keys.list(c.get("session").accountName);
  return list.ok ? list.value.find((k) => k.id === Number(id) && k.revokedAt === null) : undefined;
}

const unknownKey = (c: DashboardContext) =>
  page(
    c,
    messagePage(
      "Key not found",
      "There is no active key with this id on your account.",
      { href: "/dashboard/keys", label: "Back to your keys" },
      true,
    ),
    404,
  );

/** `/dashboard/keys`: the account's API keys, behind sign-in; creating and revoking count against the account's action budget. */
export const keysPages = new Hono<DashboardEnv>({ strict: false });

keysPages.use(requireSession);

keysPages.get("/", (c) => keysList(c));
keysPages.post("/", accountActionLimit, async (c) => {
  const created = await services(c).controlPlane.keys.create(c.get("session").accountName);
  if (!created.ok) return keysList(c, { error: created.message }, created.reason === "key_limit" ? 409 : 400);
  return keysList(c, { created: created.value }, 201);
});

keysPages.get("/:id/revoke", async (c) => {
  const key = await ownKey(c);
  return key ? page(c, revokePage(key)) : unknownKey(c);
});
keysPages.post("/:id/revoke", accountActionLimit, async (c) => {
  const key = await ownKey(c);
  if (!key) return unknownKey(c);
  await services(c).controlPlane.keys.revoke(key.id);
  return c.redirect("/dashboard/keys", 303);
});
