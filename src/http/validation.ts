import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env";
import { ApiError } from "./errors";

type Target = "param" | "query" | "json";

const WHAT: Record<Target, string> = { param: "path parameter", query: "query parameter", json: "body field" };

/** zod validation whose failures become 400 `invalid_parameter` (or `invalid_body`) naming the field. */
export function validate(target: Target, schema: z.ZodType): MiddlewareHandler<AppEnv> {
  const middleware = zValidator(target, schema, (result) => {
    if (result.success) return;
    const issue = result.error.issues[0];
    const name = issue?.path.join(".") || target;
    throw new ApiError(
      target === "json" ? "invalid_body" : "invalid_parameter",
      `Invalid ${WHAT[target]} '${name}': ${issue?.message ?? "invalid value"}.`,
    );
  });
  return middleware as unknown as MiddlewareHandler<AppEnv>;
}
