import { marketState, optionDaily, optionQuotes, screenerBaselines, screenerUnderlyingBaselines } from "../../src/db/schema";
import { previousSessions } from "../../src/domain/calendar";
import type { IngestDatabase } from "../db/database";
import { sqlNames } from "../db/rows";

const [BASELINES, B] = sqlNames(screenerBaselines);
const [UNDERLYING_BASELINES_TABLE, UB] = sqlNames(screenerUnderlyingBaselines);
const [MARKET_STATE, S] = sqlNames(marketState);
const [OPTION_DAILY, H] = sqlNames(optionDaily);
const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);

/** Sessions before the current one that make the 30-day baselines (today is excluded, ANALYTICS.md §5). */
export const BASELINE_SESSIONS = 30;

/**
 * Rewrites every listed contract's baseline for `session` from `option_daily`, and every
 * underlying's history figures (below), in one transaction
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
    for (const [table, sessionDate] of [
      [BASELINES, B.sessionDate],
      [UNDERLYING_BASELINES_TABLE, UB.sessionDate],
    ]) {
      await query(
        `delete from ${table} where ${sessionDate} = $1::date
            or ${sessionDate} is distinct from (select ${S.sessionDate} from ${MARKET_STATE} where ${S.id} = 1)`,
        [session],
      );
    }
    await query(
      `insert into ${BASELINES} (${[B.sessionDate, B.underlying, B.optionSymbol, B.samples, B.avgVolume, B.stdVolume, B.avgOpenInterest, B.stdOpenInterest, B.avgIv, B.avgMark].join(", ")})
       select $2::date, q.${Q.underlying}, b.* from (
         select h.${H.optionSymbol}, count(*)::int,
           avg(h.${H.volume})::float8, stddev_samp(h.${H.volume})::float8,
           avg(h.${H.openInterest})::float8, stddev_samp(h.${H.openInterest})::float8,
           avg(h.${H.iv} order by h.${H.date})::float8, avg(h.${H.mark} order by h.${H.date})::float8
         from ${OPTION_DAILY} h where h.${H.date} >= $1::date and h.${H.date} < $2::date
         group by h.${H.optionSymbol}) b
       join ${OPTION_QUOTES} q on q.${Q.optionSymbol} = b.${H.optionSymbol}`,
      [from, session],
    );
    await query(UNDERLYING_BASELINES, [session]);
  });
}

/**
 * The underlyings' figures for session $1: from `equity_daily` up to it, the 52-week (365-day)
 * range, the averages of the last 50 and 200 closes and the 14-session RSI (Cutler's, simple
 * averages); from `iv_daily` before it, the 52-week high and low of the 30-day IV, each on the
 * latest day it was reached. A build merges the session's own IV (rewritten every minute) into the
 * extremes. Sums in date order, as above.
 */
const UNDERLYING_BASELINES = `
insert into ${UNDERLYING_BASELINES_TABLE} (${[UB.sessionDate, UB.symbol, UB.low52, UB.high52, UB.avg50, UB.avg200, UB.rsi, UB.ivHigh, UB.ivHighDate, UB.ivLow, UB.ivLowDate].join(", ")})
with eq as (
  select e.symbol, e.date, e.close, e.high, e.low,
    row_number() over (partition by e.symbol order by e.date desc) as n,
    e.close - lag(e.close) over (partition by e.symbol order by e.date) as change
  from equity_daily e where e.date <= $1::date
),
eq_stats as (
  select eq.symbol,
    min(eq.low) filter (where eq.date > $1::date - 365) as low52, max(eq.high) filter (where eq.date > $1::date - 365) as high52,
    avg(eq.close order by eq.date) filter (where eq.n <= 50) as avg50, avg(eq.close order by eq.date) filter (where eq.n <= 200) as avg200,
    sum(greatest(eq.change, 0) order by eq.date) filter (where eq.n <= 14) as gains,
    sum(greatest(-eq.change, 0) order by eq.date) filter (where eq.n <= 14) as losses,
    count(eq.change) filter (where eq.n <= 14) as changes
  from eq group by eq.symbol
),
iv_stats as (
  select i.symbol, max(i.iv) as high, min(i.iv) as low,
    (array_agg(i.date order by i.iv desc, i.date desc))[1] as high_date,
    (array_agg(i.date order by i.iv asc, i.date desc))[1] as low_date
  from iv_daily i where i.date > $1::date - 365 and i.date < $1::date and i.iv > 0
  group by i.symbol
)
select $1::date, coalesce(s.symbol, v.symbol), s.low52, s.high52, s.avg50, s.avg200,
  case when s.changes = 14 then case when s.losses = 0 then 100 else 100 - 100 / (1 + s.gains / s.losses) end end,
  v.high, v.high_date, v.low, v.low_date
from eq_stats s full join iv_stats v on v.symbol = s.symbol`;
