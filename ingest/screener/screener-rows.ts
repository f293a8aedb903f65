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
 * statement; $1 the early-close days (13:00 ET) expirations may fall on. The 30-session baselines
 * come from `screener_baselines` (the current session's); everything else from the current quotes,
 * IVs and company data. Metrics mirror `src/analytics/screener-metrics.ts` (tests hold them to each
 * other); the probability uses `ods_norm_cdf` (migration 0008) with the chain's time convention:
 * 365-day years to 09:30 ET (AM-settled) or the close (PM-settled) of the expiration day, each
 * expiration's instant computed once. The CTEs whose columns are read several times are
 * materialised, so each value is computed once per row rather than once per use. Rows are written
 * by side, expiration and delta: the common screens (a side, a DTE window, a delta band) then read
 * adjacent pages (the wheel screen reads a sixth of the buffers it reads from rows in chain order).
 */
export const insertScreenerRows = (table: string) => `
insert into ${table} (${Object.values(getTableColumns(screenerContracts))
  .map((c) => `"${c.name}"`)
  .join(", ")})
with m as (select session_date as d, as_of, risk_free_rate as r from market_state where id = 1),
hist as (select h.* from screener_baselines h, m where h.session_date = m.d and ${inRange("h.underlying")}),
eq as (
  select e.symbol, e.date, e.close, e.high, e.low,
    row_number() over (partition by e.symbol order by e.date desc) as n,
    e.close - lag(e.close) over (partition by e.symbol order by e.date) as change
  from equity_daily e, m where e.date <= m.d and ${inRange("e.symbol")}
),
eq_stats as (
  select eq.symbol,
    min(eq.low) filter (where eq.date > m.d - 365) as low52, max(eq.high) filter (where eq.date > m.d - 365) as high52,
    avg(eq.close) filter (where eq.n <= 50) as avg50, avg(eq.close) filter (where eq.n <= 200) as avg200,
    sum(greatest(eq.change, 0)) filter (where eq.n <= 14) as gains, sum(greatest(-eq.change, 0)) filter (where eq.n <= 14) as losses,
    count(eq.change) filter (where eq.n <= 14) as changes
  from eq, m group by eq.symbol
),
iv_stats as (
  select i.symbol, max(i.iv) as high, min(i.iv) as low,
    (array_agg(i.date order by i.iv desc, i.date desc))[1] as high_date,
    (array_agg(i.date order by i.iv asc, i.date desc))[1] as low_date,
    max(i.iv) filter (where i.date = m.d) as current
  from iv_daily i, m where i.date > m.d - 365 and i.date <= m.d and i.iv > 0 and ${inRange("i.symbol")}
  group by i.symbol
),
next_earnings as (
  select distinct on (e.symbol) e.symbol, e.earnings_date from earnings e, m
  where e.earnings_date >= m.d and ${inRange("e.symbol")} order by e.symbol, e.earnings_date
),
next_dividend as (
  select distinct on (v.symbol) v.symbol, v.ex_date, v.pay_date, v.amount, v.is_estimated from dividends v, m
  where v.ex_date >= m.d and ${inRange("v.symbol")} order by v.symbol, v.ex_date
),
expiries as (
  select e.expiration, e.settlement,
    date_part('epoch', (e.expiration + case when e.settlement = 'am' then time '09:30' when e.expiration = any($1::date[]) then time '13:00' else time '16:00' end)
      at time zone 'America/New_York') as ends
  from (select distinct q.expiration, q.settlement from option_quotes q where ${inRange("q.underlying")}) e
),
base as materialized (
  select q.*, u.asset_type, u.industry, u.sector, u.rating, u.consensus, u.logo_url, u.market_cap, u.pe_ratio,
    u.dividend_yield, u.dividend_frequency, u.overall_score, u.dcf_score, u.roe_score, u.roa_score, u.de_score, u.pe_score, u.pb_score,
    coalesce(q.underlying_price, eqq.price) as spot,
    (q.expiration - m.d) as dte, m.d as session, m.r, coalesce(q.as_of, m.as_of) as quoted_at,
    greatest(x.ends - date_part('epoch', coalesce(q.as_of, m.as_of)), 60) / (365 * 86400.0) as years,
    ${markSql("q")} as prem
  from option_quotes q
  join expiries x on x.expiration = q.expiration and x.settlement = q.settlement
  join underlyings u on u.symbol = q.underlying
  left join equity_quotes eqq on eqq.symbol = q.underlying
  cross join m
  where ${inRange("q.underlying")}
),
priced as materialized (
  select b.*,
    case when b.prem is not null and b.spot > 0 then b.prem / (case b.side when 'put' then b.strike else b.spot end) * 100 end as yld,
    case when b.spot > 0 then (case b.side when 'put' then b.spot - b.strike else b.strike - b.spot end) / b.spot * 100 end as cush,
    case when b.bid >= 0 and b.ask > 0 and b.ask >= b.bid then (b.ask - b.bid) / ((b.ask + b.bid) / 2) * 100 end as spct,
    case when b.iv > 0 and b.spot > 0 then ods_norm_cdf((case b.side when 'put' then 1 else -1 end)
      * (ln(b.spot / b.strike) + (b.r - coalesce(b.dividend_yield, 0) - 0.5 * b.iv * b.iv) * b.years) / (b.iv * sqrt(b.years))) * 100 end as pro
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
  dense_rank() over (partition by x.underlying, x.expiration, x.side order by abs(x.strike - x.spot)),
  x.previous_mark,
  case when x.previous_mark > 0 and x.prem is not null then (x.prem - x.previous_mark) / x.previous_mark * 100 end,
  case when x.previous_mark > 0 and x.prem is not null then x.prem > x.previous_mark end,
  case when h.avg_mark > 0 and x.prem is not null then x.prem > h.avg_mark end,
  h.avg_volume, h.avg_iv * 100, h.avg_mark,
  case when h.samples >= ${MIN_HISTORY_SAMPLES} and h.std_volume > 0 then (coalesce(x.volume, 0) - h.avg_volume) / h.std_volume end,
  case when h.samples >= ${MIN_HISTORY_SAMPLES} and h.std_oi > 0 then (coalesce(x.open_interest, 0) - h.avg_oi) / h.std_oi end,
  case when h.samples >= ${MIN_HISTORY_SAMPLES} then h.std_volume end,
  case when h.samples >= ${MIN_HISTORY_SAMPLES} then h.std_oi end,
  coalesce(x.volume, 0) - h.avg_volume, coalesce(x.open_interest, 0) - h.avg_oi,
  coalesce(h.samples, 0), coalesce(h.samples, 0),
  0.4 * coalesce(x.pro, 0) + 0.3 * least(greatest(coalesce(x.ann, 0), 0), 100)
    + 30 * coalesce(greatest(0, 1 - x.spct / 20), 0) * least(1, log(1 + greatest(coalesce(x.open_interest, 0), 0)) / 3),
  x.last_trade_at, x.quoted_at,
  ne.earnings_date, coalesce(ne.earnings_date <= x.expiration, false),
  exists (select 1 from earnings e where e.symbol = x.underlying and e.earnings_date >= x.session
    and e.earnings_date between x.expiration - ${EARNINGS_NEAR_DAYS} and x.expiration + ${EARNINGS_NEAR_DAYS}),
  x.asset_type, x.industry, x.sector, x.rating, x.consensus, x.logo_url,
  x.spot, x.market_cap, x.pe_ratio,
  case when s.changes = 14 then case when s.losses = 0 then 100 else 100 - 100 / (1 + s.gains / s.losses) end end,
  iv.current * 100,
  case when iv.high > iv.low and iv.current is not null then (iv.current - iv.low) / (iv.high - iv.low) * 100 end,
  iv.low * 100, iv.low_date, iv.high * 100, iv.high_date,
  s.low52, s.high52, s.avg50, s.avg200,
  x.dividend_yield * 100, x.dividend_frequency, nd.amount, nd.ex_date, nd.pay_date, coalesce(nd.is_estimated, false),
  x.overall_score, x.dcf_score, x.roe_score, x.roa_score, x.de_score, x.pe_score, x.pb_score
from metrics x
left join hist h on h.option_symbol = x.option_symbol
left join eq_stats s on s.symbol = x.underlying
left join iv_stats iv on iv.symbol = x.underlying
left join next_earnings ne on ne.symbol = x.underlying
left join next_dividend nd on nd.symbol = x.underlying
order by x.side, x.expiration, x.delta`;

/** Early-close sessions from the session's year to the longest listing's (LEAPS run about three years): `insertScreenerRows`' $1. */
export function earlyCloseDays(session: string): string {
  const first = Number(session.slice(0, 4));
  return `{${Array.from({ length: 5 }, (_, i) => earlyCloses(first + i).map((d) => d.date))
    .flat()
    .join(",")}}`;
}
