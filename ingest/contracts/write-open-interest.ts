import { marketState, openInterestStaged, optionQuotes } from "../../src/db/schema";
import type { OpenInterestEvent } from "../events";
import { bulkInsert, updateOnConflict } from "../db/bulk-insert";
import type { IngestDatabase, TypedQuery } from "../db/database";
import { writeAtPositions } from "../db/positions";
import { queryRows, selectList, type Selected, sqlNames } from "../db/rows";

const [STAGED, O] = sqlNames(openInterestStaged);
const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);
const [MARKET_STATE, S] = sqlNames(marketState);

/**
 * Stages a batch of open-interest statistics under their session and moves the feed's position, in
 * one transaction. Nothing served changes until `applyOpenInterest` switches the whole session in.
 */
export async function stageOpenInterest(
  db: IngestDatabase,
  feed: string,
  events: readonly OpenInterestEvent[],
  through?: bigint,
): Promise<{ written: number; skipped: number }> {
  return writeAtPositions(
    db,
    feed,
    events,
    async (query, pending) => {
      await bulkInsert(
        query,
        openInterestStaged,
        pending.map((e) => ({ sessionDate: e.sessionDate, optionSymbol: e.optionSymbol, openInterest: e.openInterest })),
        updateOnConflict([O.sessionDate, O.optionSymbol]),
      );
    },
    through,
  );
}

/** Sessions with staged open interest not yet switched in, oldest first. */
export async function stagedSessions(query: TypedQuery): Promise<string[]> {
  const rows = await queryRows<Selected<typeof openInterestStaged, "sessionDate">>(
    query,
    `select distinct ${selectList(openInterestStaged, ["sessionDate"])} from ${STAGED} order by 1`,
  );
  return rows.map((r) => r.sessionDate);
}

/**
 * Switches `option_quotes` to the open interest staged for `sessionDate`, in one transaction: a
 * contract the day's statistics name takes their value, every other one 0 (the clearing house
 * publishes every series with open interest). Sessions up to it leave the stage and
 * `market_state.open_interest_date` names it. A session not newer than the one applied is only
 * cleared from the stage, so running it twice, or after a crash, gives the same table.
 */
export async function applyOpenInterest(db: IngestDatabase, sessionDate: string): Promise<{ applied: boolean }> {
  return db.typedTransaction(async (query) => {
    // Locks in the writers' order — option_quotes, then market_state — or the switch and a lane's
    // batch deadlock; the table lock waits for the lanes' open batches and holds back new ones.
    await query(`lock table ${OPTION_QUOTES} in share row exclusive mode`);
    const { rows } = await query(
      `select 1 from ${MARKET_STATE} where ${S.id} = 1 and (${S.openInterestDate} is null or ${S.openInterestDate} < $1::date)`,
      [sessionDate],
    );
    const applied = rows.length > 0;
    if (applied) {
      await query(
        `update ${OPTION_QUOTES} q set ${Q.openInterest} = s.${O.openInterest}
           from ${STAGED} s
          where s.${O.sessionDate} = $1::date and s.${O.optionSymbol} = q.${Q.optionSymbol}
            and q.${Q.openInterest} is distinct from s.${O.openInterest}`,
        [sessionDate],
      );
      await query(
        `update ${OPTION_QUOTES} q set ${Q.openInterest} = 0
          where q.${Q.openInterest} is distinct from 0
            and not exists (select 1 from ${STAGED} s where s.${O.sessionDate} = $1::date and s.${O.optionSymbol} = q.${Q.optionSymbol})`,
        [sessionDate],
      );
      await query(`update ${MARKET_STATE} set ${S.openInterestDate} = $1::date, ${S.version} = ${S.version} + 1 where ${S.id} = 1`, [
        sessionDate,
      ]);
    }
    await query(`delete from ${STAGED} where ${O.sessionDate} <= $1::date`, [sessionDate]);
    return { applied };
  });
}
