/**
 * One decision for every database failure: "the database is not there" (503, clients retry) or
 * "the query failed" (500, clients report). Read from what Neon's SQL-over-HTTP endpoint answers
 * and what `@neondatabase/serverless` makes of it (docs/decisions.md has the sources):
 * - the endpoint could not be fetched: NeonDbError "Error connecting to database: …";
 * - it answered 400: a NeonDbError carrying the body's fields; `code` is Postgres' SQLSTATE for
 *   a statement Postgres refused, "" for a session that broke under it ("connection closed");
 * - it answered anything else: NeonDbError "Server error (HTTP status N): <body>", no fields.
 *   Neon answers 500 when it cannot wake or reach the compute ("Couldn't connect to compute
 *   node", "Control plane request failed…", `code` "") or Postgres refuses the session (53300,
 *   57P03 in `code`); 507 when a result is too large.
 * A SQLSTATE decides wherever there is one; without one, a failed fetch, a 5xx (bar the two
 * about the query) and a lost session mean unavailable.
 */

/** SQLSTATEs of a database that is not there to answer: connection exceptions and shutdowns. */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const isUnavailableState = (code: string) => code.startsWith("08") || UNAVAILABLE_STATES.has(code);

const FETCH_FAILED = "Error connecting to database:";
const SERVER_ERROR = /^Server error \(HTTP status (\d{3})\): /;
/** tokio-postgres' texts for a session that broke under a statement, which Neon forwards with `code` "". */
const SESSION_LOST = /^(connection closed|error communicating with the server|timeout waiting for server)\b/;
/** Neon's 5xx answers without a SQLSTATE that are about the query, not the database. */
const QUERY_FAULT_5XX = { status: 507, message: "could not parse postgres response" };
/** The message an unavailability keeps across a Durable Object RPC, which drops `cause` and fields. */
const UNAVAILABLE_MESSAGE = "Database unavailable.";

function sqlState(value: unknown): string | undefined {
  return typeof value === "string" && /^[0-9A-Z]{5}$/.test(value) ? value : undefined;
}

function bodyOf(text: string): { code?: unknown; message?: unknown } {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === "object" && body !== null ? body : {};
  } catch {
    return {};
  }
}

/** What one error in a chain says, if it says anything. */
function verdict(e: Error): "unavailable" | "query" | undefined {
  const code = sqlState((e as { code?: unknown }).code);
  if (code) return isUnavailableState(code) ? "unavailable" : "query";
  if (e.message === UNAVAILABLE_MESSAGE || e.message.startsWith(FETCH_FAILED)) return "unavailable";
  const server = SERVER_ERROR.exec(e.message);
  if (server) {
    const status = Number(server[1]);
    const body = bodyOf(e.message.slice(server[0].length));
    const bodyCode = sqlState(body.code);
    if (bodyCode) return isUnavailableState(bodyCode) ? "unavailable" : "query";
    if (status < 500 || status === QUERY_FAULT_5XX.status || body.message === QUERY_FAULT_5XX.message) return "query";
    return "unavailable";
  }
  if (e.name === "NeonDbError" && SESSION_LOST.test(e.message)) return "unavailable";
  return undefined;
}

/** True when an error (or one it wraps, e.g. drizzle's DrizzleQueryError) means the database is unavailable. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const found = verdict(e);
    if (found) return found === "unavailable";
  }
  return false;
}

/**
 * The error to throw out of a Durable Object RPC method: only the message crosses, so an
 * unavailability is carried by its message; anything else goes unchanged.
 */
export function forRpc(err: unknown): unknown {
  return isDatabaseUnavailable(err) ? new Error(UNAVAILABLE_MESSAGE) : err;
}

/** Postgres' "canceling statement due to statement timeout" (query_canceled). */
const STATEMENT_TIMEOUT = "57014";

/**
 * True when a query ran out of time: the round trip passed its deadline (`boundQueries` aborts
 * the fetch with a TimeoutError) or Postgres cancelled the statement for its timeout. A database
 * that cannot be reached at all fails faster and otherwise.
 */
export function isQueryTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === "TimeoutError" || sqlState((e as { code?: unknown }).code) === STATEMENT_TIMEOUT) return true;
    if (/\bTimeoutError\b|aborted due to timeout/.test(e.message)) return true;
  }
  return false;
}

/** True when Postgres cancelled a statement for its `statement_timeout` (and not a round trip past its deadline). */
export function isStatementTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (sqlState((e as { code?: unknown }).code) === STATEMENT_TIMEOUT) return true;
  }
  return false;
}
