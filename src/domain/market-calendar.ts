/**
 * US equity-options trading days in America/New_York: the NYSE holiday and early-close rules
 * (options exchanges follow the NYSE schedule). Pure date arithmetic on ISO dates, no time zones.
 *
 * Rules (NYSE Rule 7.2 and its holiday notes):
 * - Closed: New Year's Day, Martin Luther King Jr. Day (3rd Monday of January, since 1998),
 *   Washington's Birthday (3rd Monday of February), Good Friday, Memorial Day (last Monday of May),
 *   Juneteenth (since 2022), Independence Day, Labor Day (1st Monday of September), Thanksgiving
 *   (4th Thursday of November) and Christmas Day.
 * - A holiday on a Sunday is observed on the Monday after; on a Saturday, on the Friday before —
 *   except New Year's Day, which is then not observed at all (the Friday ends an accounting year).
 * - Early close at 13:00 ET: the day after Thanksgiving, Christmas Eve and July 3, each when it is a
 *   weekday that is not itself a holiday (so not when Christmas or Independence Day falls on a
 *   Saturday and is observed that Friday).
 * - Unscheduled closures (national days of mourning, storms) cannot be derived; they are listed.
 */

import { DAY_MS } from "./time";

export interface MarketDay {
  date: string;
  name: string;
}

export interface ClockTime {
  hours: number;
  minutes: number;
}

export const REGULAR_OPEN: ClockTime = { hours: 9, minutes: 30 };
export const REGULAR_CLOSE: ClockTime = { hours: 16, minutes: 0 };
export const EARLY_CLOSE: ClockTime = { hours: 13, minutes: 0 };

/** Closures announced by the exchange outside the rules (since 2001). */
const SPECIAL_CLOSURES: readonly MarketDay[] = [
  { date: "2001-09-11", name: "September 11 attacks" },
  { date: "2001-09-12", name: "September 11 attacks" },
  { date: "2001-09-13", name: "September 11 attacks" },
  { date: "2001-09-14", name: "September 11 attacks" },
  { date: "2004-06-11", name: "National Day of Mourning (Ronald Reagan)" },
  { date: "2007-01-02", name: "National Day of Mourning (Gerald Ford)" },
  { date: "2012-10-29", name: "Hurricane Sandy" },
  { date: "2012-10-30", name: "Hurricane Sandy" },
  { date: "2018-12-05", name: "National Day of Mourning (George H. W. Bush)" },
  { date: "2025-01-09", name: "National Day of Mourning (Jimmy Carter)" },
];

function ymd(year: number, month0: number, day: number): string {
  return new Date(Date.UTC(year, month0, day)).toISOString().slice(0, 10);
}

function dayOfWeek(isoDate: string): number {
  return new Date(`${isoDate}T00:00:00Z`).getUTCDay();
}

function shift(isoDate: string, days: number): string {
  return new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The n-th (1-based) given weekday of a month; n = -1 is the last one. */
function nthWeekday(year: number, month0: number, weekday: number, n: number): string {
  if (n > 0) {
    const first = new Date(Date.UTC(year, month0, 1)).getUTCDay();
    return ymd(year, month0, 1 + ((weekday - first + 7) % 7) + (n - 1) * 7);
  }
  const lastDay = new Date(Date.UTC(year, month0 + 1, 0));
  return ymd(year, month0, lastDay.getUTCDate() - ((lastDay.getUTCDay() - weekday + 7) % 7));
}

/** Easter Sunday of the Gregorian calendar (anonymous Gregorian algorithm, Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return ymd(year, month - 1, day);
}

/** A fixed-date holiday moved off the weekend: Sunday → Monday, Saturday → Friday (or dropped). */
function observed(isoDate: string, saturdayRule: "friday" | "none"): string | null {
  const d = dayOfWeek(isoDate);
  if (d === 0) return shift(isoDate, 1);
  if (d === 6) return saturdayRule === "friday" ? shift(isoDate, -1) : null;
  return isoDate;
}

interface Year {
  holidays: MarketDay[];
  earlyCloses: MarketDay[];
  holidaySet: Set<string>;
  earlySet: Set<string>;
}

const years = new Map<number, Year>();

function yearOf(year: number): Year {
  let y = years.get(year);
  if (y) return y;
  const rules: [string | null, string][] = [
    [observed(ymd(year, 0, 1), "none"), "New Year's Day"],
    [year >= 1998 ? nthWeekday(year, 0, 1, 3) : null, "Martin Luther King Jr. Day"],
    [nthWeekday(year, 1, 1, 3), "Washington's Birthday"],
    [shift(easterSunday(year), -2), "Good Friday"],
    [nthWeekday(year, 4, 1, -1), "Memorial Day"],
    [year >= 2022 ? observed(ymd(year, 5, 19), "friday") : null, "Juneteenth National Independence Day"],
    [observed(ymd(year, 6, 4), "friday"), "Independence Day"],
    [nthWeekday(year, 8, 1, 1), "Labor Day"],
    [nthWeekday(year, 10, 4, 4), "Thanksgiving Day"],
    [observed(ymd(year, 11, 25), "friday"), "Christmas Day"],
  ];
  const holidays: MarketDay[] = rules.filter((r): r is [string, string] => r[0] !== null).map(([date, name]) => ({ date, name }));
  for (const s of SPECIAL_CLOSURES) if (s.date.startsWith(`${year}-`)) holidays.push(s);
  holidays.sort((a, b) => a.date.localeCompare(b.date));
  const holidaySet = new Set(holidays.map((h) => h.date));

  const candidates: MarketDay[] = [
    { date: ymd(year, 6, 3), name: "Independence Day eve" },
    { date: shift(nthWeekday(year, 10, 4, 4), 1), name: "Day after Thanksgiving" },
    { date: ymd(year, 11, 24), name: "Christmas Eve" },
  ];
  const earlyCloses = candidates.filter((c) => {
    const d = dayOfWeek(c.date);
    return d !== 0 && d !== 6 && !holidaySet.has(c.date);
  });
  y = { holidays, earlyCloses, holidaySet, earlySet: new Set(earlyCloses.map((c) => c.date)) };
  years.set(year, y);
  return y;
}

/** Full-day closures of a year that fall on weekdays, in date order. */
export function marketHolidays(year: number): MarketDay[] {
  return [...yearOf(year).holidays];
}

/** Sessions of a year that close at 13:00 ET, in date order. */
export function earlyCloses(year: number): MarketDay[] {
  return [...yearOf(year).earlyCloses];
}

export function isMarketHoliday(isoDate: string): boolean {
  return yearOf(Number(isoDate.slice(0, 4))).holidaySet.has(isoDate);
}

/** A weekday on which the market opens. */
export function isTradingDay(isoDate: string): boolean {
  const d = dayOfWeek(isoDate);
  return d !== 0 && d !== 6 && !isMarketHoliday(isoDate);
}

export function isEarlyClose(isoDate: string): boolean {
  return yearOf(Number(isoDate.slice(0, 4))).earlySet.has(isoDate);
}

/** Wall-clock close in New York: 13:00 on early-close days, else 16:00 (also for non-trading days). */
export function closeTime(isoDate: string): ClockTime {
  return isEarlyClose(isoDate) ? EARLY_CLOSE : REGULAR_CLOSE;
}
