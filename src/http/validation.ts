import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { AppEnv, InputTarget } from "../app-env";

declare module "hono" {
  // Set by the validators of every route, whatever its environment type.
  interface ContextVariableMap {
    input: Partial<Record<InputTarget, unknown>>;
  }
}
import { ApiError } from "./errors";

const WHAT: Record<InputTarget, string> = { param: "path parameter", query: "query parameter", json: "body field" };

/**
 * zod validation whose failures become 400 `invalid_parameter` (or `invalid_body`) naming the
 * field; the parsed value is kept in `c.var.input[target]` for the route's handler.
 */
export function validate(target: InputTarget, schema: z.ZodType): MiddlewareHandler<AppEnv> {
  return zValidator(target, schema, (result, c) => {
    if (!result.success) {
      const issue = result.error.issues[0];
      const name = issue?.path.join(".") || target;
      throw new ApiError(
        target === "json" ? "invalid_body" : "invalid_parameter",
        `Invalid ${WHAT[target]} '${name}': ${issue?.message ?? "invalid value"}.`,
      );
    }
    c.set("input", { ...c.var.input, [target]: result.data });
  });
}
