import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ControlResult } from "../../control/control-plane";
import { ApiError, type ErrorCode } from "../../http/errors";

const REASON_CODES: Record<Exclude<ControlResult<unknown>, { ok: true }>["reason"], ErrorCode> = {
  not_found: "not_found",
  conflict: "conflict",
  key_limit: "key_limit_reached",
  trial_used: "trial_already_used",
  invalid: "invalid_body",
};

/** Renders a control-plane result: the value as JSON, or the matching error. */
export function respond<T>(c: Context, result: ControlResult<T>, status: ContentfulStatusCode = 200): Response {
  if (!result.ok) throw new ApiError(REASON_CODES[result.reason], result.message);
  return c.json(result.value as object, status);
}
