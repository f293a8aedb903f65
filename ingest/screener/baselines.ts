import { previousSessions } from "../../src/domain/calendar";
import type { IngestDatabase } from "../pipeline/database";

/** Sessions before the current one that make the 30-day baselines (today is excluded, ANALYTICS.md §5). */
export const BASELINE_SESSIONS = 30;

/**
 * Rewrites every listed contract's baseline for `session` from `option_daily` in one transaction
 * (a partition built meanwhile reads the old baselines or the new, never none): the sessions'
 * count, average and standard deviation of volume and open interest, average IV and mark. A
 * contract without history has no row: its averages are null, its z-scores too. The baselines of
 * sessions other than this one and the market's current one are dropped: a roll writes the next
 * session's while the screener still serves the current one's.
 */
export async function writeBaselines(db: IngestDatabase, session: string): Promise<void> {
  const from = previousSessions(session, BASELINE_SESSIONS + 1)[0]!;
  // Float averages summed in date order: a float sum depends on the rows' order (which a rewritten table
  // changes), and a rerun must give the same baselines. Integers' averages are exact in numeric.
  await db.typedTransaction(async (query) => {
    await query(`set local work_mem = '256MB'`);
    await query(
      `delete from screener_baselines where session_date = $1::date
          or session_date is distinct from (select session_date from market_state where id = 1)`,
      [session],
    );
    await query(
      `insert into screener_baselines (session_date, underlying, option_symbol, samples, avg_volume, std_volume, avg_oi, std_oi, avg_iv, avg_mark)
       select $2::date, q.underlying, b.* from (
         select h.option_symbol, count(*)::int,
           avg(h.volume)::float8, stddev_samp(h.volume)::float8,
           avg(h.open_interest)::float8, stddev_samp(h.open_interest)::float8,
           avg(h.iv order by h.date)::float8, avg(h.mark order by h.date)::float8
         from option_daily h where h.date >= $1::date and h.date < $2::date
         group by h.option_symbol) b
       join option_quotes q on q.option_symbol = b.option_symbol`,
      [from, session],
    );
  });
}
