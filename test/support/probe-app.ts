import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { z } from "zod";
import { sql } from "drizzle-orm";
import { newApp } from "../../src/app";
import { ApiError } from "../../src/http/errors";
import { defineRoute } from "../../src/http/route";
import { routes } from "../../src/routes";
import { testEnv } from "./worker";
import { services } from "../../src/services";

/**
 * The production app plus a few data routes that exist only in tests (an entitled no-op, a slow
 * one, one that throws, one with a validated parameter, one answering 404), so the access
 * pipeline can be exercised before the real data endpoints exist.
 */
/** A test-only GET route (entitled unless said otherwise) with no response schema. */
export const probe = (
  path: string,
  handler: Parameters<typeof defineRoute>[0]["handler"],
  query?: z.ZodType,
  access: "public" | "entitled" = "entitled",
) =>
  defineRoute({
    method: "get",
    path,
    operationId: path,
    summary: path,
    tags: [],
    access,
    caching: "per-request",
    response: { description: path },
    handler,
    ...(query ? { query } : {}),
  });

const probeRoutes = [
  probe("/v1/test/ok", () => ({ ok: true })),
  probe(
    "/v1/test/slow",
    async (_c, { query }) => {
      await new Promise((resolve) => setTimeout(resolve, (query as { ms: number }).ms));
      return { ok: true };
    },
    z.object({ ms: z.coerce.number().int().min(0).max(5_000) }),
  ),
  probe("/v1/test/throw", () => {
    throw new Error("boom");
  }),
  probe("/v1/test/validated", () => ({ ok: true }), z.object({ n: z.coerce.number().int() })),
  probe("/v1/test/missing", () => {
    throw new ApiError("not_found", "No such thing.");
  }),
  probe(
    "/v1/test/slow-query",
    async (c, { query }) => {
      await services(c).market.execute(sql`select pg_sleep(${(query as { s: number }).s})`);
      return { ok: true };
    },
    z.object({ s: z.coerce.number().min(0).max(5) }),
  ),
];

export const app = newApp([...routes, ...probeRoutes]);

let calls = 0;
/**
 * A fresh client address for each call, from 100.64.0.0/10, which no test names: tests share the
 * isolate and its `AuthGuard`s, so an address another test locked out (192.0.2.50 and .60 for 300 s)
 * would turn a probe's 401 into a 429, depending on the files' order.
 */
const nextClientIp = () => {
  const n = ++calls;
  return `100.64.${(n >> 8) & 63}.${n & 255}`;
};

/** One request through the app with the real bindings; waits for its deferred work (the release). */
export async function probeCall(path: string, init: RequestInit = {}, env = testEnv): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", nextClientIp());
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`https://api.test${path}`, { ...init, headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
