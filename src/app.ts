import { Hono, type Context, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app-env";
import { adminAudit, adminGate, adminServedHere } from "./access/admin-gate";
import { mountBillingWebhook } from "./billing/webhook";
import { mountApiReference } from "./reference/docs-page";
import { dashboard } from "./dashboard/app";
import { mountMcp } from "./mcp/server";
import { mountStream } from "./streams/stream-route";
import { accessGate } from "./access/gates";
import { isDatabaseUnavailable } from "./db/errors";
import { configure } from "./http/configure";
import { noCredentialsInQuery, originAuth } from "./http/edge-guards";
import { ApiError, errorResponse, internalError, noEndpoint } from "./http/errors";
import { limitBody } from "./http/body-limit";
import { logFailure } from "./http/failure-log";
import { MethodTable } from "./http/method-table";
import { requestId } from "./http/request-id";
import { honoPath, type RouteSpec } from "./http/route";
import { validate } from "./http/validation";
import { ApiDescription } from "./openapi/published";

/**
 * A body in another media type would reach the JSON validator as no body at all (and a screen of
 * `type=put` would silently screen everything): refuse it. No body at all is an empty object.
 */
const jsonOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = c.req.header("Content-Type");
  const hasBody = (c.req.header("Content-Length") ?? "0") !== "0" || c.req.header("Transfer-Encoding") !== undefined;
  if (hasBody && !/^application\/([a-z.+-]*\+)?json\b/i.test(type ?? "")) {
    throw new ApiError("invalid_body", "Send the request body as JSON with Content-Type: application/json.");
  }
  await next();
};

/** Runs a route's handler on its validated input and renders what it returns. */
function handle(route: RouteSpec) {
  return async (c: Context<AppEnv>) => {
    const input = c.var.input;
    if (route.response.status) c.status(route.response.status);
    const reply = await route.handler(c, { params: input.param ?? {}, query: input.query ?? {}, body: input.json });
    return reply instanceof Response ? reply : c.json(reply as object);
  };
}

/**
 * Builds the application from route specs; shared by the Worker entry and tests. The API
 * description covers exactly these routes (the admin API excluded).
 */
export function newApp(routes: readonly RouteSpec[]): Hono<AppEnv> {
  // Not strict: `/v1/usage/` is `/v1/usage`, never a self-contradicting 405.
  const app = new Hono<AppEnv>({ strict: false });
  const methods = new MethodTable(routes);
  const description = new ApiDescription(routes);

  app.use(requestId);
  app.use(async (c, next) => {
    c.set("input", {});
    c.set("apiDescription", description);
    await next();
  });
  app.use(configure);
  app.use(originAuth);
  app.use(noCredentialsInQuery);
  // Every admin call is logged with its outcome (src/access/admin-gate.ts).
  app.use("/admin/*", adminAudit);

  for (const route of routes) {
    const paths = [route.path, ...(route.aliases ?? [])].map(honoPath);
    const chain: MiddlewareHandler<AppEnv>[] = [
      route.access === "admin" ? adminGate : accessGate(route.access),
      ...(route.params ? [validate("param", route.params)] : []),
      ...(route.query ? [validate("query", route.query)] : []),
      ...(route.body ? [limitBody, jsonOnly, validate("json", route.body)] : []),
    ];
    app.on(route.method.toUpperCase(), paths, ...chain, handle(route));
  }

  mountBillingWebhook(app);
  app.route("/dashboard", dashboard);
  mountApiReference(app);
  mountMcp(app);
  mountStream(app);

  app.all("*", (c) => {
    const emptyParam = methods.emptyParamOf(c.req.path);
    if (emptyParam && (c.req.method === "GET" || c.req.method === "HEAD")) {
      throw new ApiError("missing_symbol", `The path parameter '${emptyParam}' is required.`);
    }
    const allow = methods.allowFor(c.req.path, adminServedHere(c));
    if (allow) {
      throw new ApiError("method_not_allowed", `Method ${c.req.method} is not allowed here; allowed: ${allow}.`, {
        headers: { Allow: allow },
      });
    }
    throw noEndpoint(c.req.path);
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    // Hono's validator raises a 400 for a body that is not JSON; anything else of Hono's is ours to fix.
    if (err instanceof HTTPException && err.status === 400) {
      return errorResponse(c, new ApiError("invalid_body", "The request body could not be parsed as JSON."));
    }
    logFailure(c.get("requestId") ?? "", c.req.path, err);
    if (isDatabaseUnavailable(err)) {
      return errorResponse(
        c,
        new ApiError("service_unavailable", "The database is temporarily unavailable; retry shortly.", { headers: { "Retry-After": "1" } }),
      );
    }
    return errorResponse(c, internalError());
  });

  return app;
}
