import type { ControlFailure, ControlResult } from "../../control/result";
import { ApiError, type ErrorCode } from "../../http/errors";

const REASON_CODES: Record<ControlFailure, ErrorCode> = {
  not_found: "not_found",
  conflict: "conflict",
  key_limit: "key_limit_reached",
  trial_used: "trial_already_used",
  invalid: "invalid_body",
};

/** A control-plane result as a response body, or the matching error: only the HTTP layer throws. */
export function unwrap<T>(result: ControlResult<T>): T {
  if (!result.ok) throw new ApiError(REASON_CODES[result.reason], result.message);
  return result.value;
}
