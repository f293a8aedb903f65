import { Hono, type Context, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app-env";
import { ApiError, errorResponse } from "./http/errors";
import { MethodTable } from "./http/method-table";
import { configure } from "./http/configure";
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

  for (const route of routes) {
    const paths = [route.path, ...(route.aliases ?? [])].map(honoPath);
    const validators: MiddlewareHandler<AppEnv>[] = [
      ...(route.params ? [validate("param", route.params)] : []),
      ...(route.query ? [validate("query", route.query)] : []),
    ];
    app.on(route.method.toUpperCase(), paths, ...validators, (c: Context<AppEnv>) =>
      route.handler(c, {
        params: route.params ? c.req.valid("param" as never) : {},
        query: route.query ? c.req.valid("query" as never) : {},
      }),
    );
  }

  app.all("*", (c) => {
    const allow = methods.allowFor(c.req.path);
    if (allow) {
      throw new ApiError("method_not_allowed", `Method ${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}.`, {
        headers: { Allow: allow },
      });
    }
    throw new ApiError("not_found", `No endpoint at ${c.req.path}.`);
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      return errorResponse(c, new ApiError("invalid_parameter", "The request could not be parsed."));
    }
    logFailure(c.get("requestId") ?? "", c.req.path, err);
    return errorResponse(c, new ApiError("internal_error", "An internal error occurred. Quote the request_id when contacting support."));
  });

  return app;
}
