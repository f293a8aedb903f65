import { sessionOnOrBefore, todayInNewYork } from "../../src/domain/calendar";
import type { TypedQuery } from "../db/database";

/** The session a sample belongs to: its New York day's, or the last one before (a feed laid on the wall clock at a weekend). */
export const sessionOf = (asOf: Date): string => sessionOnOrBefore(todayInNewYork(asOf));

/**
 * A sample of a later session makes it the market's: every cache depends on the session (days to
 * expiry, rankings), so the load's version moves on too — once a day.
 */
export async function moveSession(query: TypedQuery, asOf: Date, session: string): Promise<void> {
  await query(
    `update market_state set version = version + 1, as_of = greatest(as_of, $1::timestamptz), session_date = $2::date, loaded_at = now()
      where id = 1 and session_date < $2::date`,
    [asOf.toISOString(), session],
  );
}
