import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedMarket } from "../../devkit/generator/seed-market";
import { rebuildScreener } from "../../ingest/screener/rebuild";
import { rebuildAllPartitions } from "../../ingest/screener/partitions";
import { openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { ivRank } from "../../src/analytics/iv-rank";
import { normCdf } from "../../src/analytics/normal";
import {
  annualizedReturn,
  baseline,
  contractScore,
  cushion,
  moneyness,
  premium,
  probabilityOtm,
  yieldPercent,
  zScore,
} from "../../src/analytics/screener-metrics";
import { addDays } from "../../src/domain/calendar";
import { yearsToExpiry } from "../../src/domain/market-clock";
import vectors from "../fixtures/published-vectors.json";

const wheel = vectors.wheelExample;

describe("screener metrics against the published wheel example (S=100, K=95, 30 DTE, r=5%, σ=30%, q=0)", () => {
  it("yield on the strike, simple annualisation, N(d2) and cushion", () => {
    const y = yieldPercent("put", wheel.premiumPerShare, 95, 100);
    expect(y).toBeCloseTo(wheel.yieldPercent_premiumOverStrike, 10);
    expect(annualizedReturn(y, 30)).toBeCloseTo(wheel.annualizedReturn_simple365, 9);
    const p = probabilityOtm({ S: 100, K: 95, T: 30 / 365, r: 0.05, q: 0, sigma: 0.3, side: "put" });
    expect(p / 100).toBeCloseTo(wheel.probExpireOTM_riskNeutral_N_d2, 10);
    expect(cushion("put", 95, 100)).toBeCloseTo(wheel.cushionPercent, 12);
    expect(moneyness("put", 95, 100)).toBe("otm");
    expect(moneyness("call", 95, 100)).toBe("itm");
    expect(moneyness("call", 100.5, 100)).toBe("atm");
  });

  it("premium is the mid of a two-sided market, else the last trade", () => {
    expect(premium(1.2, 1.4, 9)).toBeCloseTo(1.3, 12);
    expect(premium(null, 1.4, 1.1)).toBe(1.1);
    expect(premium(1.5, 1.4, null)).toBeNull();
  });

  it("z-scores use the sample standard deviation and are undefined for a short or flat baseline", () => {
    const base = baseline([10, 12, 9, 11, 10, 13, 8, 10, 11, 12]);
    expect(base.std).toBeCloseTo(Math.sqrt(20.4 / 9), 12);
    expect(zScore(20, base)).toBeCloseTo((20 - 10.6) / Math.sqrt(20.4 / 9), 12);
    expect(zScore(20, baseline([1, 2, 3]))).toBeNull();
    expect(zScore(20, baseline(Array(12).fill(5)))).toBeNull();
  });
});

describe("the screener table built by SQL", () => {
  let backend: SqlBackend;
  beforeAll(async () => {
    backend = await openBackend({ dataDir: "memory://" });
    await backend.migrate("./drizzle");
    await seedMarket(backend, { size: "test", seed: 11 });
  }, 120_000);
  afterAll(async () => backend.close());

  it("ods_norm_cdf (migration 0008) agrees with the analytics' normal CDF to 1e-13", async () => {
    const xs = Array.from({ length: 161 }, (_, i) => -40 + i * 0.5).concat([-7.5, -7.07, 7.07, 7.5, 1e-9, -1e-9]);
    const { rows } = await backend.typedQuery("select x, ods_norm_cdf(x) as p from unnest($1::float8[]) as x", [xs]);
    for (const r of rows) expect(Math.abs((r.p as number) - normCdf(r.x as number)), `x=${r.x}`).toBeLessThan(1e-13);
  });

  it("every row's metrics equal the pure functions on the same inputs", async () => {
    const { rows } = await backend.typedQuery(
      `select s.*, s.expiration::text as expires, q.iv as iv_decimal, q.settlement, q.as_of::text as quoted, q.previous_mark, m.risk_free_rate as r,
              m.session_date::text as session, coalesce(u.dividend_yield, 0) as q_yield
         from screener_contracts s join option_quotes q on q.option_symbol = s.option_key
         join underlyings u on u.symbol = s.symbol cross join market_state m`,
    );
    expect(rows.length).toBeGreaterThan(1000);
    let probabilities = 0;
    for (const r of rows) {
      const side = r.type as "call" | "put";
      const S = r.stock_price as number;
      const K = r.strike as number;
      const prem = premium(r.bid_price as number | null, r.ask_price as number | null, r.last_price as number | null);
      expect(r.premium).toBe(prem);
      if (prem === null) continue;
      const dte = Math.round((Date.parse(r.expires as string) - Date.parse(r.session as string)) / 86_400_000);
      const y = yieldPercent(side, prem, K, S);
      expect(r.yield_percent as number).toBeCloseTo(y, 9);
      expect(r.annualized_return as number).toBeCloseTo(annualizedReturn(y, dte), 8);
      expect(r.cushion as number).toBeCloseTo(cushion(side, K, S), 9);
      expect(r.moneyness).toBe(moneyness(side, K, S));
      if (r.iv_decimal !== null) {
        const T = yearsToExpiry(r.expires as string, r.settlement as "am" | "pm", new Date(r.quoted as string));
        const p = probabilityOtm({ S, K, T, r: r.r as number, q: r.q_yield as number, sigma: r.iv_decimal as number, side });
        expect(r.probability as number, r.option_key as string).toBeCloseTo(p, 6);
        probabilities++;
        const score = contractScore({
          probability: r.probability as number,
          annualizedReturn: r.annualized_return as number,
          spreadPct: r.spread_pct as number | null,
          openInterest: r.open_interest as number | null,
        });
        expect(r.contract_score as number).toBeCloseTo(score, 9);
      }
    }
    expect(probabilities).toBeGreaterThan(1000);
  });

  it("z-scores and averages come from the 30 sessions before the snapshot's, today excluded", async () => {
    const { rows } = await backend.typedQuery(
      `select s.option_key, s.volume, s.volume_z_30d, s.avg_volume_30d, s.volume_samples_30d,
              array(select d.volume from option_daily d, market_state m
                     where d.option_symbol = s.option_key and d.date < m.session_date order by d.date) as history
         from screener_contracts s order by s.option_key limit 300`,
    );
    let defined = 0;
    for (const r of rows) {
      const base = baseline(r.history as number[]);
      expect(r.volume_samples_30d).toBe(base.samples);
      const z = zScore(r.volume as number, base);
      if (z === null) expect(r.volume_z_30d).toBeNull();
      else {
        expect(r.volume_z_30d as number).toBeCloseTo(z, 9);
        defined++;
      }
    }
    expect(defined).toBeGreaterThan(50);
  });

  it("flags expirations within 7 days of an upcoming earnings date and lives spanning one", async () => {
    const { rows } = await backend.typedQuery(
      `select s.option_key, s.expiration_near_earnings as near, s.earnings_before_expiration as spans,
              exists (select 1 from earnings e, market_state m where e.symbol = s.symbol and e.earnings_date >= m.session_date
                        and abs(e.earnings_date - s.expiration) <= 7) as expected_near,
              exists (select 1 from earnings e, market_state m where e.symbol = s.symbol and e.earnings_date >= m.session_date
                        and e.earnings_date <= s.expiration) as expected_spans
         from screener_contracts s`,
    );
    for (const r of rows) {
      expect(r.near, r.option_key as string).toBe(r.expected_near);
      expect(r.spans, r.option_key as string).toBe(r.expected_spans);
    }
    expect(rows.some((r) => r.near)).toBe(true);
    expect(rows.some((r) => r.spans && !r.near)).toBe(true);
  });

  it("ranks each contract's strike by its distance from the spot within its underlying, expiration and side, ties sharing a rank", async () => {
    const { rows } = await backend.typedQuery(
      `select symbol, expiration::text as expiration, type, strike, stock_price as spot, strike_rank as rank from screener_contracts`,
    );
    const chains = new Map<string, { distance: number; rank: number }[]>();
    for (const r of rows) {
      const key = `${r.symbol as string} ${r.expiration as string} ${r.type as string}`;
      const chain = chains.get(key) ?? [];
      chains.set(key, chain);
      chain.push({ distance: Math.abs((r.strike as number) - (r.spot as number)), rank: r.rank as number });
    }
    let tied = 0;
    for (const [key, chain] of chains) {
      const distances = [...new Set(chain.map((c) => c.distance))].sort((a, b) => a - b);
      for (const c of chain) expect(c.rank, key).toBe(distances.indexOf(c.distance) + 1);
      tied += chain.length - distances.length;
    }
    expect(chains.size).toBeGreaterThan(100);
    expect(tied).toBeGreaterThan(0);
  });

  it("underlyings' figures follow their history, and each build merges the session's IV into the 52-week extremes", async () => {
    const session = (await backend.typedQuery("select session_date::text as d from market_state")).rows[0]!.d as string;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // Cutler's RSI: the last 14 changes of the closes, simple averages.
    const rsi = (closes: number[]) => {
      const changes = closes.slice(-15).flatMap((c, i, a) => (i ? [c - a[i - 1]!] : []));
      if (changes.length < 14) return null;
      const gains = changes.reduce((a, c) => a + Math.max(c, 0), 0);
      const losses = changes.reduce((a, c) => a + Math.max(-c, 0), 0);
      return losses === 0 ? 100 : 100 - 100 / (1 + gains / losses);
    };
    const latestAt = (series: { date: string; iv: number }[], iv: number | null) =>
      iv === null ? null : series.filter((o) => o.iv === iv).reduce((d, o) => (o.date > d ? o.date : d), "");
    const check = async () => {
      const { rows } = await backend.typedQuery(
        `select distinct on (s.symbol) s.symbol, s.rsi, s.fifty_day_average as avg50, s.two_hundred_day_average as avg200,
                s.fifty_two_week_low as low52, s.fifty_two_week_high as high52, s.stock_iv, s.ivr,
                s.lowest_stock_iv as iv_low, s.lowest_stock_iv_date::text as iv_low_date,
                s.highest_stock_iv as iv_high, s.highest_stock_iv_date::text as iv_high_date,
                array(select json_build_object('date', e.date, 'close', e.close, 'low', e.low, 'high', e.high) from equity_daily e
                       where e.symbol = s.symbol and e.date <= $1::date order by e.date) as bars,
                array(select json_build_object('date', i.date, 'iv', i.iv) from iv_daily i
                       where i.symbol = s.symbol and i.date > $1::date - 365 and i.date <= $1::date and i.iv > 0 order by i.date) as ivs
           from screener_contracts s order by s.symbol`,
        [session],
      );
      for (const r of rows) {
        const symbol = r.symbol as string;
        const bars = r.bars as { date: string; close: number; low: number; high: number }[];
        const closes = bars.map((b) => b.close);
        const year = bars.filter((b) => b.date > addDays(session, -365));
        expect(r.avg50 as number, symbol).toBeCloseTo(mean(closes.slice(-50)), 9);
        expect(r.avg200 as number, symbol).toBeCloseTo(mean(closes.slice(-200)), 9);
        expect(r.low52, symbol).toBe(Math.min(...year.map((b) => b.low)));
        expect(r.high52, symbol).toBe(Math.max(...year.map((b) => b.high)));
        const expectedRsi = rsi(closes);
        if (expectedRsi === null) expect(r.rsi, symbol).toBeNull();
        else expect(r.rsi as number, symbol).toBeCloseTo(expectedRsi, 9);
        const ivs = r.ivs as { date: string; iv: number }[];
        const current = ivs.find((o) => o.date === session)?.iv ?? null;
        const rank = ivRank({ asOf: session, current, history: ivs });
        expect(r.stock_iv, symbol).toBe(current === null ? null : current * 100);
        if (rank.ivr === null) expect(r.ivr, symbol).toBeNull();
        else expect(r.ivr as number, symbol).toBeCloseTo(rank.ivr, 9);
        expect(r.iv_low, symbol).toBe(rank.ivLow52w === null ? null : rank.ivLow52w * 100);
        expect(r.iv_high, symbol).toBe(rank.ivHigh52w === null ? null : rank.ivHigh52w * 100);
        expect(r.iv_low_date, symbol).toBe(latestAt(ivs, rank.ivLow52w));
        expect(r.iv_high_date, symbol).toBe(latestAt(ivs, rank.ivHigh52w));
      }
      return rows;
    };
    const seeded = await check();
    const ranked = seeded.filter((r) => r.ivr !== null).map((r) => r.symbol as string);
    expect(ranked.length).toBeGreaterThan(3);
    expect(seeded.filter((r) => r.rsi !== null).length).toBeGreaterThan(3);
    // A minute's IVs (the session's iv_daily row) without a roll: a new high, a new low, a tie with the high, none.
    const [high, low, tie, none] = ranked;
    await backend.typedQuery(
      `update iv_daily i set iv = case i.symbol
         when $2 then (select max(h.iv) * 1.5 from iv_daily h where h.symbol = i.symbol)
         when $3 then (select min(h.iv) / 2 from iv_daily h where h.symbol = i.symbol)
         else (select max(h.iv) from iv_daily h where h.symbol = i.symbol and h.date > $1::date - 365 and h.date < $1::date) end
       where i.date = $1::date and i.symbol in ($2, $3, $4)`,
      [session, high, low, tie],
    );
    await backend.typedQuery("delete from iv_daily where date = $1::date and symbol = $2", [session, none]);
    await rebuildAllPartitions(backend);
    const moved = new Map((await check()).map((r) => [r.symbol as string, r]));
    expect(moved.get(high!)).toMatchObject({ ivr: 100, iv_high_date: session });
    expect(moved.get(low!)).toMatchObject({ ivr: 0, iv_low_date: session });
    expect(moved.get(tie!)).toMatchObject({ ivr: 100, iv_high_date: session });
    expect(moved.get(none!)).toMatchObject({ stock_iv: null, ivr: null });
    expect(moved.get(none!)!.iv_high_date).not.toBe(session);
  });

  it("a rebuild swaps in new partitions under the same key and indexes", async () => {
    const indexes = async () =>
      (await backend.typedQuery("select indexname, indexdef from pg_indexes where tablename = 'screener_contracts' order by 1")).rows;
    const before = (await backend.typedQuery("select count(*)::int as n from screener_contracts")).rows[0]!.n as number;
    const definitions = await indexes();
    expect(definitions.map((r) => r.indexname)).toContain("screener_contracts_symbol_option_key_pk");
    await backend.typedQuery("delete from option_quotes where option_symbol = (select min(option_symbol) from option_quotes)");
    expect(await rebuildScreener(backend)).toBe(before - 1);
    expect((await backend.typedQuery("select count(*)::int as n from screener_contracts")).rows[0]!.n).toBe(before - 1);
    expect(await indexes()).toEqual(definitions);
  });
});
