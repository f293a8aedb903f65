import { isQueryTimeout } from "../db/errors";
import { ApiError } from "./errors";

/** How long a client should wait before retrying a query that timed out, seconds. */
const RETRY_AFTER_SECONDS = "2";

/**
 * For routes whose queries depend on the client's filters (flow): a query past the time budget is
 * 503 `query_timeout` with Retry-After, not a generic unavailability.
 */
export async function withinQueryBudget<T>(query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (err) {
    if (isQueryTimeout(err)) {
      throw new ApiError("query_timeout", "The query took too long; narrow the window or the filters, or retry shortly.", {
        headers: { "Retry-After": RETRY_AFTER_SECONDS },
      });
    }
    throw err;
  }
}
