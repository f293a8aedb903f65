import { addDays, daysBetween, sessionOnOrAfter } from "../../src/domain/calendar";
import type { VendorDividend } from "../../src/vendors/fundamentals-provider";

/** The frequencies the calendars name (spec: `Quarterly`, `Semi-Annual`, …), each with its payments a year and its longest usual gap. */
const FREQUENCIES = [
  { name: "Monthly", perYear: 12, maxGapDays: 45 },
  { name: "Quarterly", perYear: 4, maxGapDays: 135 },
  { name: "Semi-Annual", perYear: 2, maxGapDays: 250 },
  { name: "Annual", perYear: 1, maxGapDays: 450 },
] as const;

export type DividendFrequency = (typeof FREQUENCIES)[number]["name"];

const byExDate = (a: VendorDividend, b: VendorDividend) => (a.exDate < b.exDate ? -1 : a.exDate > b.exDate ? 1 : 0);

/**
 * A payer's frequency from the gaps between its last ex-dates (the median of up to four, so one
 * special dividend does not decide it); null with fewer than two, or gaps of more than 450 days.
 */
export function dividendFrequency(dividends: readonly VendorDividend[]): DividendFrequency | null {
  const dates = [...new Set([...dividends].sort(byExDate).map((d) => d.exDate))].slice(-5);
  if (dates.length < 2) return null;
  const gaps = dates
    .slice(1)
    .map((d, i) => daysBetween(dates[i]!, d))
    .sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)]!;
  return FREQUENCIES.find((f) => median <= f.maxGapDays)?.name ?? null;
}

export const paymentsPerYear = (frequency: DividendFrequency): number => FREQUENCIES.find((f) => f.name === frequency)!.perYear;

/**
 * The next dividend of a regular payer that has not declared it yet: the last one's amount, its
 * ex-date a period on (the next session on or after it) and its pay date as far after. None when
 * one is declared on or after `today`, or the last is more than two periods old (payments stopped).
 */
export function estimatedNextDividend(
  dividends: readonly VendorDividend[],
  frequency: DividendFrequency | null,
  today: string,
): VendorDividend | null {
  if (frequency === null || dividends.length === 0) return null;
  const last = [...dividends].sort(byExDate).at(-1)!;
  if (last.exDate >= today) return null;
  const period = Math.round(365 / paymentsPerYear(frequency));
  if (daysBetween(last.exDate, today) > 2 * period) return null;
  let exDate = addDays(last.exDate, period);
  while (exDate < today) exDate = addDays(exDate, period);
  exDate = sessionOnOrAfter(exDate);
  return { exDate, payDate: addDays(exDate, daysBetween(last.exDate, last.payDate)), amount: last.amount };
}
