/**
 * True when an error (or one it wraps) says the database could not be reached or answered with a
 * server error, as opposed to a query that failed: the first is a 503, the second a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (/Error connecting to database|Server error \(HTTP status 5\d\d\)|fetch failed|Network connection lost/i.test(e.message))
      return true;
  }
  return false;
}
