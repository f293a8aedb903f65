import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { z } from "zod";
import { newApp } from "../../src/app";
import { ApiError } from "../../src/http/errors";
import { defineRoute } from "../../src/http/route";
import { routes } from "../../src/routes";
import { testEnv } from "./worker";

/**
 * The production app plus a few data routes that exist only in tests (an entitled no-op, a slow
 * one, one that throws, one with a validated parameter, one answering 404), so the access
 * pipeline can be exercised before the real data endpoints exist.
 */
const probe = (path: string, handler: Parameters<typeof defineRoute>[0]["handler"], query?: z.ZodType) =>
  defineRoute({
    method: "get",
    path,
    operationId: path,
    summary: path,
    tags: [],
    access: "entitled",
    responses: {},
    handler,
    ...(query ? { query } : {}),
  });

const probeRoutes = [
  probe("/v1/test/ok", (c) => c.json({ ok: true })),
  probe(
    "/v1/test/slow",
    async (c, { query }) => {
      await new Promise((resolve) => setTimeout(resolve, (query as { ms: number }).ms));
      return c.json({ ok: true });
    },
    z.object({ ms: z.coerce.number().int().min(0).max(5_000) }),
  ),
  probe("/v1/test/throw", () => {
    throw new Error("boom");
  }),
  probe("/v1/test/validated", (c) => c.json({ ok: true }), z.object({ n: z.coerce.number().int() })),
  probe("/v1/test/missing", () => {
    throw new ApiError("not_found", "No such thing.");
  }),
];

const app = newApp([...routes, ...probeRoutes]);

let ip = 0;

/** One request through the app with the real bindings; waits for its deferred work (the release). */
export async function probeCall(path: string, init: RequestInit = {}, env = testEnv): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", `192.0.2.${++ip % 250}`);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`https://api.test${path}`, { ...init, headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
