import { getTableColumns } from "drizzle-orm";
import { ATM_BAND_PCT, MIN_HISTORY_SAMPLES } from "../../src/analytics/screener-metrics";
import { screenerContracts } from "../../src/db/schema";
import { earlyCloses } from "../../src/domain/market-calendar";
import { markSql } from "../quotes/mark";

/** Days either side of an earnings date within which an expiration is "near earnings" (spec: 7). */
const EARNINGS_NEAR_DAYS = 7;

/** `column` within the underlyings [$2, $3) of the symbol order (a null bound: none). */
const inRange = (column: string) => `($2::text is null or ${column} >= $2) and ($3::text is null or ${column} < $3)`;

/**
 * The screener rows of the underlyings in [$2, $3) into `table`, from the stored market in one
 * statement; $1 the early-close days (13:00 ET) expirations may fall on, $4 the market's session,
 * $5 its time (a quote's when it has none) and $6 its risk-free rate (read by the caller in the
 * build's transaction: as parameters, the planner estimates each range's rows rightly). The
 * contracts' 30-session baselines come from `screener_baselines` and the underlyings' history
 * figures from `screener_underlying_baselines` (the current session's: the session's own IV,
 * rewritten every minute, is merged into the 52-week extremes here); everything else from the
 * current quotes, IVs and company data. Metrics mirror `src/analytics/screener-metrics.ts`
 * (tests hold them to each other); the probability uses `ods_norm_cdf` (migration 0008) with the
 * chain's time convention: 365-day years to 09:30 ET (AM-settled) or the close (PM-settled) of the
 * expiration day.
 *
 * What an underlying or one of its expirations shares is computed once (`und`: a couple of hundred
 * rows; `expiries`: a few thousand; both materialised) and joined to its contracts by hash, so the
 * contracts' rows stay narrow until the last step (their strike ranks and baselines are taken
 * while they are). The contracts' own CTEs are not materialised: forming 50,000 wide rows into a
 * store and reading them back, twice, cost more than computing a mark or a year fraction once per
 * use (a partition's statement 16–44 % faster at full size). Rows are written by side,
 * expiration and delta: the common screens (a side, a DTE window, a delta band) then read adjacent
 * pages (the wheel screen reads a sixth of the buffers it reads from rows in chain order).
 */
export const insertScreenerRows = (table: string) => `
insert into ${table} (${Object.values(getTableColumns(screenerContracts))
  .map((c) => `"${c.name}"`)
  .join(", ")})
with hist as (select h.* from screener_baselines h where h.session_date = $4 and ${inRange("h.underlying")}),
ub as (select b.* from screener_underlying_baselines b where b.session_date = $4 and ${inRange("b.symbol")}),
iv_today as (select i.symbol, i.iv from iv_daily i where i.date = $4 and i.iv > 0 and ${inRange("i.symbol")}),
next_earnings as (
  select distinct on (e.symbol) e.symbol, e.earnings_date from earnings e
  where e.earnings_date >= $4 and ${inRange("e.symbol")} order by e.symbol, e.earnings_date
),
next_dividend as (
  select distinct on (v.symbol) v.symbol, v.ex_date, v.pay_date, v.amount, v.is_estimated from dividends v
  where v.ex_date >= $4 and ${inRange("v.symbol")} order by v.symbol, v.ex_date
),
und as materialized (
  select u.symbol, u.asset_type, u.industry, u.sector, u.rating, u.consensus, u.logo_url, u.market_cap, u.pe_ratio,
    u.dividend_yield, u.dividend_frequency, u.overall_score, u.dcf_score, u.roe_score, u.roa_score, u.de_score, u.pe_score, u.pb_score,
    eqq.price as equity_price,
    b.rsi, b.low52, b.high52, b.avg50, b.avg200,
    t.iv as iv_current,
    least(b.iv_low, t.iv) as iv_low, case when t.iv <= coalesce(b.iv_low, 'infinity') then $4::date else b.iv_low_date end as iv_low_date,
    greatest(b.iv_high, t.iv) as iv_high, case when t.iv >= coalesce(b.iv_high, 0) then $4::date else b.iv_high_date end as iv_high_date,
    ne.earnings_date, nd.amount as dividend_amount, nd.ex_date as dividend_date, nd.pay_date as dividend_pay_date,
    coalesce(nd.is_estimated, false) as dividend_is_estimated
  from underlyings u
  left join equity_quotes eqq on eqq.symbol = u.symbol
  left join ub b on b.symbol = u.symbol
  left join iv_today t on t.symbol = u.symbol
  left join next_earnings ne on ne.symbol = u.symbol
  left join next_dividend nd on nd.symbol = u.symbol
  where ${inRange("u.symbol")}
),
expiries as materialized (
  select e.underlying, e.expiration, e.settlement,
    date_part('epoch', (e.expiration + case when e.settlement = 'am' then time '09:30' when e.expiration = any($1::date[]) then time '13:00' else time '16:00' end)
      at time zone 'America/New_York') as ends,
    exists (select 1 from earnings n where n.symbol = e.underlying and n.earnings_date >= $4
      and n.earnings_date between e.expiration - ${EARNINGS_NEAR_DAYS} and e.expiration + ${EARNINGS_NEAR_DAYS}) as near_earnings
  from (select distinct q.underlying, q.expiration, q.settlement from option_quotes q where ${inRange("q.underlying")}) e
),
base as (
  select q.option_symbol, q.underlying, q.side, q.expiration, q.strike, q.bid, q.ask, q.last, q.volume, q.open_interest,
    q.delta, q.gamma, q.theta, q.vega, q.iv, q.previous_mark, q.last_trade_at, x.near_earnings, u.dividend_yield,
    h.samples as h_samples, h.avg_volume as h_avg_volume, h.std_volume as h_std_volume, h.avg_oi as h_avg_oi, h.std_oi as h_std_oi,
    h.avg_iv as h_avg_iv, h.avg_mark as h_avg_mark,
    coalesce(q.underlying_price, u.equity_price) as spot,
    (q.expiration - $4::date) as dte, coalesce(q.as_of, $5::timestamptz) as quoted_at,
    greatest(x.ends - date_part('epoch', coalesce(q.as_of, $5::timestamptz)), 60) / (365 * 86400.0) as years,
    ${markSql("q")} as prem,
    dense_rank() over (partition by q.underlying, q.expiration, q.side
      order by abs(q.strike - coalesce(q.underlying_price, u.equity_price))) as strike_rank
  from option_quotes q
  join expiries x on x.underlying = q.underlying and x.expiration = q.expiration and x.settlement = q.settlement
  join und u on u.symbol = q.underlying
  left join hist h on h.option_symbol = q.option_symbol
  where ${inRange("q.underlying")}
),
priced as (
  select b.*,
    case when b.prem is not null and b.spot > 0 then b.prem / (case b.side when 'put' then b.strike else b.spot end) * 100 end as yld,
    case when b.spot > 0 then (case b.side when 'put' then b.spot - b.strike else b.strike - b.spot end) / b.spot * 100 end as cush,
    case when b.bid >= 0 and b.ask > 0 and b.ask >= b.bid then (b.ask - b.bid) / ((b.ask + b.bid) / 2) * 100 end as spct,
    case when b.iv > 0 and b.spot > 0 then ods_norm_cdf((case b.side when 'put' then 1 else -1 end)
      * (ln(b.spot / b.strike) + ($6::float8 - coalesce(b.dividend_yield, 0) - 0.5 * b.iv * b.iv) * b.years) / (b.iv * sqrt(b.years))) * 100 end as pro
  from base b
),
metrics as (
  select p.*, p.yld * 365 / greatest(p.dte, 1) as ann
  from priced p
)
select
  x.option_symbol, x.underlying, x.side, x.expiration, x.strike, x.bid, x.ask, x.last, x.prem, x.volume, x.open_interest,
  x.delta, x.gamma, x.theta, x.vega, x.iv * 100, x.yld, x.ann, x.pro,
  case when x.bid is not null and x.ask is not null and x.ask >= x.bid then x.ask - x.bid end, x.spct,
  case when x.cush is null or abs(x.cush) <= ${ATM_BAND_PCT} then 'atm' when x.cush > 0 then 'otm' else 'itm' end,
  x.cush, coalesce(x.volume, 0) + coalesce(x.open_interest, 0),
  x.strike_rank,
  x.previous_mark,
  case when x.previous_mark > 0 and x.prem is not null then (x.prem - x.previous_mark) / x.previous_mark * 100 end,
  case when x.previous_mark > 0 and x.prem is not null then x.prem > x.previous_mark end,
  case when x.h_avg_mark > 0 and x.prem is not null then x.prem > x.h_avg_mark end,
  x.h_avg_volume, x.h_avg_iv * 100, x.h_avg_mark,
  case when x.h_samples >= ${MIN_HISTORY_SAMPLES} and x.h_std_volume > 0 then (coalesce(x.volume, 0) - x.h_avg_volume) / x.h_std_volume end,
  case when x.h_samples >= ${MIN_HISTORY_SAMPLES} and x.h_std_oi > 0 then (coalesce(x.open_interest, 0) - x.h_avg_oi) / x.h_std_oi end,
  case when x.h_samples >= ${MIN_HISTORY_SAMPLES} then x.h_std_volume end,
  case when x.h_samples >= ${MIN_HISTORY_SAMPLES} then x.h_std_oi end,
  coalesce(x.volume, 0) - x.h_avg_volume, coalesce(x.open_interest, 0) - x.h_avg_oi,
  coalesce(x.h_samples, 0), coalesce(x.h_samples, 0),
  0.4 * coalesce(x.pro, 0) + 0.3 * least(greatest(coalesce(x.ann, 0), 0), 100)
    + 30 * coalesce(greatest(0, 1 - x.spct / 20), 0) * least(1, log(1 + greatest(coalesce(x.open_interest, 0), 0)) / 3),
  x.last_trade_at, x.quoted_at,
  u.earnings_date, coalesce(u.earnings_date <= x.expiration, false), x.near_earnings,
  u.asset_type, u.industry, u.sector, u.rating, u.consensus, u.logo_url,
  x.spot, u.market_cap, u.pe_ratio, u.rsi,
  u.iv_current * 100,
  case when u.iv_high > u.iv_low and u.iv_current is not null then (u.iv_current - u.iv_low) / (u.iv_high - u.iv_low) * 100 end,
  u.iv_low * 100, u.iv_low_date, u.iv_high * 100, u.iv_high_date,
  u.low52, u.high52, u.avg50, u.avg200,
  u.dividend_yield * 100, u.dividend_frequency, u.dividend_amount, u.dividend_date, u.dividend_pay_date, u.dividend_is_estimated,
  u.overall_score, u.dcf_score, u.roe_score, u.roa_score, u.de_score, u.pe_score, u.pb_score
from metrics x
join und u on u.symbol = x.underlying
order by x.side, x.expiration, x.delta`;

/** Early-close sessions from the session's year to the longest listing's (LEAPS run about three years): `insertScreenerRows`' $1. */
export function earlyCloseDays(session: string): string {
  const first = Number(session.slice(0, 4));
  return `{${Array.from({ length: 5 }, (_, i) => earlyCloses(first + i).map((d) => d.date))
    .flat()
    .join(",")}}`;
}
