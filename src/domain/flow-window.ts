import { addDays, sessionOnOrAfter, sessionOnOrBefore } from "./calendar";

/**
 * Days of prints kept and served: the spec's "Flow retention 7 days", in calendar days back from
 * today's ET date (not trading sessions; "3 weekday sessions" is the market-wide limit's unit).
 */
export const RETENTION_DAYS = 7;
/** The longest market-wide flow query, in trading sessions. */
export const MARKET_WIDE_MAX_SESSIONS = 3;

/**
 * One end of a flow window. The newest session is the feed's (the session of its newest print),
 * known only to the database, so a bound may refer to it and is resolved in the query itself.
 */
export type Bound = { date: string } | { newest: true } | { atMostNewest: string };

export interface FlowWindowRequest {
  from?: string;
  to?: string;
  /** Where a window given only `from` ends: the newest session (flow for symbols) or the `from` session. */
  fromOnlyEndsAt: "newest" | "fromSession";
  /** Limit the window to this many sessions (market-wide flow). */
  maxSessions?: number;
  /** The plan's history, in calendar days back from today; a `from` before it is moved up to it. */
  historyDays: number;
  /** Today's ET date. */
  today: string;
}

export type FlowWindowResult =
  { ok: true; from: Bound; to: Bound; clamped: boolean } | { ok: false; error: "out_of_range" | "invalid_range"; message: string };

/**
 * The earliest `from` served for today's ET date, today − 7 days (any day: a weekend or holiday
 * starts at the next session); the retention job keeps every session on or after it.
 */
export function retentionStart(today: string, days = RETENTION_DAYS): string {
  return addDays(today, -days);
}

/**
 * Trading sessions in [from, to] (inclusive ISO dates), counted up to `atMost` at most: a `to` of
 * 9999-12-31 must not cost millions of steps (nor run past the year 9999, where ISO dates gain a
 * sixth year digit and no longer compare as text).
 */
export function sessionsBetween(from: string, to: string, atMost = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (let d = sessionOnOrAfter(from); d <= to && n < atMost; d = sessionOnOrAfter(nextDay(d))) {
    n++;
    if (d >= LAST_DATE) break;
  }
  return n;
}

/** The last day with a `YYYY-MM-DD` form (the day after it is `+010000-01-01`). */
const LAST_DATE = "9999-12-31";

function nextDay(d: string): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * The spec's window rules for flow and net flow. Without `from` the window starts at `to` (one
 * session, the one on or before it, and never past the newest), or is the newest session; without
 * `to` it ends as `fromOnlyEndsAt` says; a `to` past the newest session is cut back to it. A `from`
 * more than 7 days before today is out of range; one before the plan's history is clamped.
 */
export function flowWindow(req: FlowWindowRequest): FlowWindowResult {
  const { from, to, today } = req;
  const earliest = retentionStart(today);
  if (from !== undefined && from < earliest) {
    return {
      ok: false,
      error: "out_of_range",
      message: `from (${from}) is older than the ${RETENTION_DAYS}-day retention (earliest from: ${earliest}).`,
    };
  }
  if (from !== undefined && to !== undefined && from > to) {
    return { ok: false, error: "invalid_range", message: `from (${from}) is after to (${to}).` };
  }
  if (from === undefined) {
    // A `to` alone is where the window starts, so the retention rule of `from` applies to its session.
    const start = to === undefined ? undefined : sessionOnOrBefore(to);
    if (start !== undefined && start < earliest) {
      return {
        ok: false,
        error: "out_of_range",
        message: `to (${to}) alone is the session of ${start}, older than the ${RETENTION_DAYS}-day retention (earliest from: ${earliest}).`,
      };
    }
    const bound: Bound = start === undefined ? { newest: true } : { atMostNewest: start };
    return { ok: true, from: bound, to: bound, clamped: false };
  }
  const historyStart = retentionStart(today, Math.min(req.historyDays, RETENTION_DAYS));
  const clamped = from < historyStart;
  const start = clamped ? historyStart : from;
  if (to === undefined && req.fromOnlyEndsAt === "newest") return { ok: true, from: { date: start }, to: { newest: true }, clamped };
  const end = to ?? sessionOnOrAfter(start);
  if (req.maxSessions !== undefined && sessionsBetween(start, end, req.maxSessions + 1) > req.maxSessions) {
    return {
      ok: false,
      error: "out_of_range",
      message: `A market-wide query spans at most ${req.maxSessions} sessions; ${start} to ${end} spans more. Name symbols for longer windows.`,
    };
  }
  return { ok: true, from: { date: start }, to: to === undefined ? { date: end } : { atMostNewest: end }, clamped };
}

/** A bound's date once the newest session is known (null: the feed is empty, today's session stands in). */
export function resolveBound(bound: Bound, newest: string | null, today: string): string {
  const n = newest ?? sessionOnOrBefore(today);
  if ("date" in bound) return bound.date;
  if ("newest" in bound) return n;
  return bound.atMostNewest < n ? bound.atMostNewest : n;
}
