import { openInterestStaged } from "../../src/db/schema";
import type { OpenInterestEvent } from "../events";
import { bulkInsert, updateOnConflict } from "../db/bulk-insert";
import type { IngestDatabase, TypedQuery } from "../db/database";
import { writeAtPositions } from "../db/positions";

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
        updateOnConflict(["session_date", "option_symbol"]),
      );
    },
    through,
  );
}

/** Sessions with staged open interest not yet switched in, oldest first. */
export async function stagedSessions(query: TypedQuery): Promise<string[]> {
  const { rows } = await query(`select distinct session_date::text as session_date from open_interest_staged order by 1`);
  return rows.map((r) => r.session_date as string);
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
    await query(`lock table option_quotes in share row exclusive mode`);
    const { rows } = await query(
      `select 1 from market_state where id = 1 and (open_interest_date is null or open_interest_date < $1::date)`,
      [sessionDate],
    );
    const applied = rows.length > 0;
    if (applied) {
      await query(
        `update option_quotes q set open_interest = s.open_interest
           from open_interest_staged s
          where s.session_date = $1::date and s.option_symbol = q.option_symbol
            and q.open_interest is distinct from s.open_interest`,
        [sessionDate],
      );
      await query(
        `update option_quotes q set open_interest = 0
          where q.open_interest is distinct from 0
            and not exists (select 1 from open_interest_staged s where s.session_date = $1::date and s.option_symbol = q.option_symbol)`,
        [sessionDate],
      );
      await query(`update market_state set open_interest_date = $1::date, version = version + 1 where id = 1`, [sessionDate]);
    }
    await query(`delete from open_interest_staged where session_date <= $1::date`, [sessionDate]);
    return { applied };
  });
}
