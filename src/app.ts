import { Hono, type Context, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app-env";
import { isDatabaseUnavailable } from "./db/errors";
import { ApiError, errorResponse } from "./http/errors";
import { MethodTable } from "./http/method-table";
import { accessGate } from "./http/access";
import { adminGate } from "./http/admin-gate";
import { configure } from "./http/configure";
import { noCredentialsInQuery, originAuth } from "./http/edge-guards";
import { requestId } from "./http/request-id";
import { honoPath, type RouteSpec } from "./http/route";
import { validate } from "./http/validation";

/** The request fields worth logging for a failure: never headers, keys or query values. */
function logFailure(requestIdValue: string, path: string, err: unknown): void {
  const name = err instanceof Error ? err.name : typeof err;
  // Query parameters can carry key hashes or customer input: drop the driver's params dump.
  const message = (err instanceof Error ? err.message : String(err)).split("\nparams:")[0];
  console.error(JSON.stringify({ level: "error", requestId: requestIdValue, path, error: name, message }));
}

/** Builds the application from route specs; shared by the Worker entry and tests. */
export function newApp(routes: readonly RouteSpec[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const methods = new MethodTable(routes);

  app.use(requestId);
  app.use(configure);
  app.use(originAuth);
  app.use(noCredentialsInQuery);

  for (const route of routes) {
    const paths = [route.path, ...(route.aliases ?? [])].map(honoPath);
    const chain: MiddlewareHandler<AppEnv>[] = [
      route.access === "admin" ? adminGate : accessGate(route.access),
      ...(route.params ? [validate("param", route.params)] : []),
      ...(route.query ? [validate("query", route.query)] : []),
      ...(route.body ? [validate("json", route.body)] : []),
    ];
    app.on(route.method.toUpperCase(), paths, ...chain, (c: Context<AppEnv>) =>
      route.handler(c, {
        params: route.params ? c.req.valid("param" as never) : {},
        query: route.query ? c.req.valid("query" as never) : {},
        body: route.body ? c.req.valid("json" as never) : undefined,
      }),
    );
  }

  app.all("*", (c) => {
    // Echoed paths are bounded: a message should not grow with whatever a client sends.
    const shownPath = c.req.path.length > 120 ? `${c.req.path.slice(0, 120)}…` : c.req.path;
    const emptyParam = methods.emptyParamOf(c.req.path);
    if (emptyParam && (c.req.method === "GET" || c.req.method === "HEAD")) {
      throw new ApiError("missing_symbol", `The path parameter '${emptyParam}' is required.`);
    }
    const allow = methods.allowFor(c.req.path);
    if (allow) {
      throw new ApiError("method_not_allowed", `Method ${c.req.method} is not allowed on ${shownPath}; allowed: ${allow}.`, {
        headers: { Allow: allow },
      });
    }
    throw new ApiError("not_found", `No endpoint at ${shownPath}.`);
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    // Hono raises these for unparseable bodies (e.g. malformed JSON).
    if (err instanceof HTTPException && err.status < 500) {
      return errorResponse(c, new ApiError("invalid_body", "The request body could not be parsed as JSON."));
    }
    logFailure(c.get("requestId") ?? "", c.req.path, err);
    if (isDatabaseUnavailable(err)) {
      return errorResponse(
        c,
        new ApiError("service_unavailable", "The database is temporarily unavailable; retry shortly.", { headers: { "Retry-After": "1" } }),
      );
    }
    return errorResponse(c, new ApiError("internal_error", "An internal error occurred. Quote the request_id when contacting support."));
  });

  return app;
}
