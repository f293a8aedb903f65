import { addDays, newYorkInstant, todayInNewYork } from "../domain/calendar";

let last: { date: string; resetAt: Date } | undefined;

/** The ET counting day of `now` and the UTC instant it ends (the next New York midnight). */
export function usageDay(now: number): { date: string; resetAt: Date } {
  const date = todayInNewYork(new Date(now));
  if (last?.date !== date) last = { date, resetAt: newYorkInstant(addDays(date, 1), 0, 0) };
  return last;
}
