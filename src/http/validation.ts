import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env";
import { ApiError } from "./errors";

type Target = "param" | "query";

/** zod validation whose failures become 400 `invalid_parameter` naming the parameter. */
export function validate(target: Target, schema: z.ZodType): MiddlewareHandler<AppEnv> {
  const middleware = zValidator(target, schema, (result) => {
    if (result.success) return;
    const issue = result.error.issues[0];
    const name = issue?.path.join(".") || target;
    throw new ApiError("invalid_parameter", `Invalid ${target === "param" ? "path" : "query"} parameter '${name}': ${issue?.message ?? "invalid value"}.`);
  });
  return middleware as unknown as MiddlewareHandler<AppEnv>;
}
