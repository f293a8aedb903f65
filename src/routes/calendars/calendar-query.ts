import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env";
import { addDays, daysBetween } from "../../domain/calendar";
import { requestToday } from "../../http/request-clock";
import { STANDARD_LIMITS } from "../../domain/plans";
import { tickerParam } from "../../domain/symbols";
import { ApiError } from "../../http/errors";
import { cursorPosition } from "../../http/cursor-param";
import { orderedRange } from "../../http/input-checks";
import { clampToPlan, markClamped } from "../../http/limit-headers";
import { dateParam, limitParam } from "../../http/query-params";
import type { CalendarWindow } from "../../market/calendars";
import { encodeCursor, queryDigest } from "../../pagination/cursor";

export const DEFAULT_CALENDAR_LIMIT = 250;
export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 90;

/** The query both calendars share. */
export const calendarQueryShape = {
  from: dateParam.describe(
    "First date (YYYY-MM-DD, ET), default today. Before the plan's history window it is moved up to it (X-Limit-Clamped: true).",
  ),
  to: dateParam.describe(
    `Last date (YYYY-MM-DD), default from + ${DEFAULT_WINDOW_DAYS - 1} (a ${DEFAULT_WINDOW_DAYS}-day window); at most ${MAX_WINDOW_DAYS} days in all.`,
  ),
  symbol: tickerParam.optional().describe("Only this ticker; always listed, also outside the coverage universe."),
  limit: limitParam({
    description: `Events per page, 1-1000 (default ${DEFAULT_CALENDAR_LIMIT}); clamped to the plan's maximum rows (${STANDARD_LIMITS.maxRows}) with X-Limit-Clamped: true.`,
    default: DEFAULT_CALENDAR_LIMIT,
  }),
  cursor: z.string().max(512).optional().describe("Opaque cursor from `nextCursor`."),
};

const CalendarQuery = z.object(calendarQueryShape);
type CalendarQueryInput = z.infer<typeof CalendarQuery>;

/** The envelope both calendars answer, around their own event schema. */
export function calendarEnvelope<E extends z.ZodType>(event: E) {
  return z.object({
    from: z.iso.date().describe("First date of the window served (after any clamp)."),
    to: z.iso.date().describe("Last date of the window served."),
    truncated: z.boolean().describe("True when more events match than were returned."),
    nextCursor: z.string().nullable().describe("Opaque; pass as `cursor` for the next page; null when there are no more."),
    results: z.array(event).describe("By date, then symbol."),
  });
}

/**
 * The window a calendar request asks for: `from` defaults to today (or to `to` when that is
 * earlier), `to` to a 30-day window; `from` after `to` or more than 90 days is 400 `invalid_range`;
 * a `from` before the plan's history window is moved up to it, with X-Limit-Clamped.
 */
export function calendarWindow(c: Context<AppEnv>, q: CalendarQueryInput, today = requestToday(c)): CalendarWindow {
  let from = q.from ?? (q.to !== undefined && q.to < today ? q.to : today);
  const to = q.to ?? addDays(from, DEFAULT_WINDOW_DAYS - 1);
  orderedRange(["from", from], ["to", to], "after");
  const historyStart = addDays(today, -c.get("account").limits.historyDays);
  if (from < historyStart) {
    from = historyStart;
    markClamped(c);
  }
  // The window served, after the clamp, is what must fit: an old `from` is clamped, not refused.
  if (daysBetween(from, to) + 1 > MAX_WINDOW_DAYS) {
    throw new ApiError("invalid_range", `The window ${from} to ${to} is longer than ${MAX_WINDOW_DAYS} days.`);
  }
  return { from, to: to < from ? from : to, symbol: q.symbol };
}

/** An event's position in calendar order: (date, symbol) is unique. */
type Position = [date: string, symbol: string];
/** What a calendar cursor carries: the position of the last event served. */
const POSITION = z.tuple([z.string(), z.string()]);

export interface CalendarPage<T> {
  from: string;
  to: string;
  truncated: boolean;
  nextCursor: string | null;
  results: T[];
}

/** The page size a calendar request asks for, clamped to the plan (with X-Limit-Clamped). */
export function calendarLimit(c: Context<AppEnv>, q: CalendarQueryInput): number {
  return clampToPlan(c, q.limit ?? DEFAULT_CALENDAR_LIMIT, c.get("account").limits.maxRows);
}

/**
 * One page of a calendar's events (already in date, symbol order), continuing after the cursor's
 * position. The cursor is signed and bound to the calendar, its window and filters and the page size.
 */
export async function calendarPage<E, T>(
  c: Context<AppEnv>,
  name: string,
  q: CalendarQueryInput & { includeAll?: boolean },
  window: CalendarWindow,
  limit: number,
  events: readonly E[],
  key: (e: E) => Position,
  wire: (e: E) => T,
): Promise<CalendarPage<T>> {
  const secrets = c.get("config").CURSOR_SECRET;
  // Bound to the parameters as sent (not to the dates a default resolves to: a cursor survives midnight).
  const digest = await queryDigest({ name, from: q.from, to: q.to, symbol: q.symbol, includeAll: q.includeAll ?? false, limit });
  let start = 0;
  if (q.cursor !== undefined) {
    const [date, symbol] = await cursorPosition(secrets, q.cursor, digest, POSITION);
    start = events.findIndex((e) => {
      const [d, s] = key(e);
      return d > date || (d === date && s > symbol);
    });
    if (start < 0) start = events.length;
  }
  const page = events.slice(start, start + limit);
  const truncated = start + limit < events.length;
  const last = page.at(-1);
  return {
    from: window.from,
    to: window.to,
    truncated,
    nextCursor: truncated && last ? await encodeCursor(secrets, key(last), digest) : null,
    results: page.map(wire),
  };
}
