/** Calendar helpers on ISO dates (YYYY-MM-DD), all in the exchange's (ET) calendar. */

import { closeTime, isTradingDay, REGULAR_OPEN } from "./market-calendar";
import { DAY_MS } from "./time";

export function toDate(iso: string): Date {
  return new Date(`${iso}T00:00:00Z`);
}

export function iso(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(isoDate: string, days: number): string {
  return iso(new Date(toDate(isoDate).getTime() + days * DAY_MS));
}

export function daysBetween(from: string, to: string): number {
  return Math.round((toDate(to).getTime() - toDate(from).getTime()) / DAY_MS);
}

export function weekday(isoDate: string): number {
  return toDate(isoDate).getUTCDay();
}

export function isWeekday(isoDate: string): boolean {
  const d = weekday(isoDate);
  return d !== 0 && d !== 6;
}

/** A trading session: a weekday that is not a market holiday (see market-calendar.ts). */
export function isSession(isoDate: string): boolean {
  return isTradingDay(isoDate);
}

/** The last `count` sessions up to and including `isoDate`, oldest first. */
export function previousSessions(isoDate: string, count: number): string[] {
  const out: string[] = [];
  let d = isoDate;
  while (out.length < count) {
    if (isSession(d)) out.push(d);
    d = addDays(d, -1);
  }
  return out.reverse();
}

/** Third Friday of a month (standard monthly expiration). */
export function thirdFriday(year: number, month0: number): string {
  const first = new Date(Date.UTC(year, month0, 1));
  const offset = (5 - first.getUTCDay() + 7) % 7;
  return iso(new Date(Date.UTC(year, month0, 1 + offset + 14)));
}

// Building an Intl formatter is far costlier than using one: build each once.
const NY_DATE = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York" });
const NY_PARTS = new Intl.DateTimeFormat("en-US", {
  timeZone: "America/New_York",
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

const lastHour = { hour: NaN, date: "" };

/** Today's date in New York. */
export function todayInNewYork(now = new Date()): string {
  // New York's offset is whole hours: its date is one within a UTC hour, formatted once per hour.
  const hour = Math.floor(now.getTime() / 3_600_000);
  if (hour !== lastHour.hour) [lastHour.hour, lastHour.date] = [hour, NY_DATE.format(now)];
  return lastHour.date;
}

/** Wall-clock time → UTC offset, memoised: time-zone conversion is slow and callers reuse a few hundred instants. */
const nyOffsets = new Map<string, number>();
const MAX_OFFSETS = 10_000;

/** UTC instant of a wall-clock time in New York on a date (handles DST). */
export function newYorkInstant(isoDate: string, hours: number, minutes = 0, seconds = 0, ms = 0): Date {
  const guess = Date.UTC(
    Number(isoDate.slice(0, 4)),
    Number(isoDate.slice(5, 7)) - 1,
    Number(isoDate.slice(8, 10)),
    hours,
    minutes,
    seconds,
    ms,
  );
  const key = `${isoDate}T${hours}:${minutes}:${seconds}`;
  let offset = nyOffsets.get(key);
  if (offset === undefined) {
    const parts = NY_PARTS.formatToParts(new Date(guess));
    const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
    offset = guess - ms - Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
    if (nyOffsets.size >= MAX_OFFSETS) nyOffsets.clear();
    nyOffsets.set(key, offset);
  }
  return new Date(guess + offset);
}

/** The last session on or before a date. */
export function sessionOnOrBefore(isoDate: string): string {
  let d = isoDate;
  while (!isSession(d)) d = addDays(d, -1);
  return d;
}

/** The first session on or after a date. */
export function sessionOnOrAfter(isoDate: string): string {
  let d = isoDate;
  while (!isSession(d)) d = addDays(d, 1);
  return d;
}

/** Opening instant of a session: 09:30 ET. */
export function sessionOpenAt(isoDate: string): Date {
  return newYorkInstant(isoDate, REGULAR_OPEN.hours, REGULAR_OPEN.minutes);
}

/** Closing instant of a session: 13:00 ET on early-close days, else 16:00 ET (the PM-settlement time). */
export function sessionCloseAt(isoDate: string): Date {
  const { hours, minutes } = closeTime(isoDate);
  return newYorkInstant(isoDate, hours, minutes);
}

/**
 * A `YYYY-MM-DD` string naming a day that exists (no 2026-02-30) in years 0001-9999: the one check
 * of query dates and screener values. Year 0000 is a valid JavaScript date but not a PostgreSQL
 * one, and five-digit years have no `YYYY-MM-DD` form.
 */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value.startsWith("0000")) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}
