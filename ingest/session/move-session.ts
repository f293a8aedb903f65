import { marketState } from "../../src/db/schema";
import { sessionOnOrBefore, todayInNewYork } from "../../src/domain/calendar";
import type { TypedQuery } from "../db/database";
import { sqlNames } from "../db/rows";

const [MARKET_STATE, S] = sqlNames(marketState);

/** The session a sample belongs to: its New York day's, or the last one before (a feed laid on the wall clock at a weekend). */
export const sessionOf = (asOf: Date): string => sessionOnOrBefore(todayInNewYork(asOf));

/**
 * A sample of a later session makes it the market's: every cache depends on the session (days to
 * expiry, rankings), so the load's version moves on too — once a day.
 */
export async function moveSession(query: TypedQuery, asOf: Date, session: string): Promise<void> {
  await query(
    `update ${MARKET_STATE} set ${S.version} = ${S.version} + 1, ${S.asOf} = greatest(${S.asOf}, $1::timestamptz), ${S.sessionDate} = $2::date,
       ${S.loadedAt} = now()
      where ${S.id} = 1 and ${S.sessionDate} < $2::date`,
    [asOf.toISOString(), session],
  );
}
