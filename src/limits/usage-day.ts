import { addDays, newYorkInstant, todayInNewYork } from "../domain/calendar";

/** The ET counting day of `now` and the UTC instant it ends (the next New York midnight). */
export function usageDay(now: number): { date: string; resetAt: Date } {
  const date = todayInNewYork(new Date(now));
  return { date, resetAt: newYorkInstant(addDays(date, 1), 0, 0) };
}
