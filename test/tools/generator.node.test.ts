import { flowPartitionName } from "../../src/market/flow-partitions";
import { testSqlPassword } from "../support/sql-password";
import { DEFAULT_RISK_FREE_RATE, marketClock, yearsToExpiry } from "../../src/domain/market-clock";
import { neon, neonConfig } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import { classifyFill, otmPercent } from "../../src/analytics/flow";
import { isSession, sessionCloseAt, sessionOpenAt } from "../../src/domain/calendar";
import { parseOcc } from "../../src/domain/occ";
import { sessionPrints } from "../../devkit/generator/flow";
import { buildChain, EXCHANGE_LISTINGS, expirationsFor } from "../../devkit/generator/market";
import { Random } from "../../devkit/generator/random";
import { buildUniverse } from "../../devkit/generator/universe";

const SESSION = "2026-11-20";

function chainOf(seed: number, symbol = "AAPL") {
  const universe = buildUniverse(40, new Random(seed).fork("universe"));
  const u = universe.find((x) => x.symbol === symbol)!;
  return { u, contracts: buildChain(u, marketClock(SESSION), "2026-12-10", 1, new Random(seed).fork(symbol)) };
}

describe("synthetic market generator", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    expect(chainOf(3).contracts).toEqual(chainOf(3).contracts);
    expect(chainOf(4).contracts).not.toEqual(chainOf(3).contracts);
  });

  it("lists the demo names, an index with AM and PM roots, and ~40 underlyings", () => {
    const universe = buildUniverse(40, new Random(1));
    expect(universe).toHaveLength(40);
    for (const s of ["SPY", "QQQ", "IWM", "AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "SPX"])
      expect(universe.map((u) => u.symbol)).toContain(s);
    const spx = universe.find((u) => u.symbol === "SPX")!;
    expect(spx.assetType).toBe("index");
    expect(spx.roots.map((r) => `${r.root}:${r.settlement}`)).toEqual(["SPX:am", "SPXW:pm"]);
  });

  it("prices every contract consistently: valid OCC symbols, bid ≤ ask, IV reproducing the mid, Greek signs", () => {
    const { u, contracts } = chainOf(11);
    expect(contracts.length).toBeGreaterThan(200);
    const clock = marketClock(SESSION);
    for (const c of contracts) {
      expect(parseOcc(c.optionSymbol)).toEqual({ root: c.root, expiration: c.expiration, side: c.side, strike: c.strike });
      expect(c.bid).toBeGreaterThanOrEqual(0);
      expect(c.ask).toBeGreaterThan(c.bid);
      if (c.iv === null) continue;
      const T = yearsToExpiry(c.expiration, c.settlement, clock.asOf);
      const repriced = bsm({ S: u.price, K: c.strike, T, r: DEFAULT_RISK_FREE_RATE, q: u.dividendYield, sigma: c.iv, side: c.side });
      expect(repriced.price).toBeCloseTo((c.bid + c.ask) / 2, 8);
      expect(Math.sign(c.delta!)).toBe(c.side === "call" ? 1 : -1);
      expect(c.gamma!).toBeGreaterThanOrEqual(0);
      expect(c.vega!).toBeGreaterThanOrEqual(0);
    }
  });

  it("has a put skew and more open interest near the money", () => {
    const { u, contracts } = chainOf(5, "SPY");
    const expiry = [...new Set(contracts.map((c) => c.expiration))].find((e) => e > "2026-12-15")!;
    const puts = contracts.filter((c) => c.expiration === expiry && c.side === "put");
    const low = puts.find((c) => c.strike <= u.price * 0.92)!;
    const atm = puts.reduce((a, b) => (Math.abs(b.strike - u.price) < Math.abs(a.strike - u.price) ? b : a));
    expect(low.sigma).toBeGreaterThan(atm.sigma);
    const near = puts.filter((c) => Math.abs(c.strike / u.price - 1) < 0.03);
    const far = puts.filter((c) => Math.abs(c.strike / u.price - 1) > 0.1);
    const mean = (xs: typeof puts) => xs.reduce((s, c) => s + c.openInterest, 0) / xs.length;
    expect(mean(near)).toBeGreaterThan(mean(far));
  });
});

describe("generator on the market calendar", () => {
  const universe = buildUniverse(40, new Random(1).fork("universe"));
  const spy = universe.find((x) => x.symbol === "SPY")!;

  it("moves holiday expirations to the session before and lists dailies only on sessions", () => {
    // Good Friday 2025 (April 18) was the third Friday: April's monthlies expired on Thursday the 17th.
    const april = expirationsFor(spy, true, "2025-04-14");
    expect(april).toContain("2025-04-17");
    expect(april).not.toContain("2025-04-18");
    // Dailies from the Wednesday before Thanksgiving 2026 skip the holiday; the early-close Friday is listed.
    const daily = expirationsFor(spy, false, "2026-11-25");
    expect(daily.slice(0, 4)).toEqual(["2026-11-25", "2026-11-27", "2026-11-30", "2026-12-01"]);
    for (const e of [...april, ...daily]) expect(isSession(e), e).toBe(true);
  });

  it("lists the flagship chains as the exchanges do in the full-size market: SPX/SPXW ≥ 20,000 contracts over ≥ 40 expirations, SPY and QQQ ≥ 8,000", () => {
    const clock = marketClock("2026-11-20");
    const chain = (symbol: string) => {
      const u = universe.find((x) => x.symbol === symbol)!;
      return buildChain(u, clock, null, 4.6, new Random(5).fork(symbol), EXCHANGE_LISTINGS[symbol]);
    };
    const spx = chain("SPX");
    expect(spx.length).toBeGreaterThanOrEqual(20_000);
    expect(new Set(spx.map((c) => c.expiration)).size).toBeGreaterThanOrEqual(40);
    expect(new Set(spx.map((c) => c.root))).toEqual(new Set(["SPX", "SPXW"]));
    const expirations = [...new Set(spx.map((c) => c.expiration))].sort();
    expect(expirations.at(-1)! >= "2028-11-01").toBe(true); // LEAPS about two years out
    // The strike grid widens with time: the farthest expiration spans more than the nearest.
    const span = (e: string) => {
      const strikes = spx.filter((c) => c.expiration === e && c.root === "SPXW").map((c) => c.strike);
      return Math.max(...strikes) - Math.min(...strikes);
    };
    expect(span(expirations.at(-1)!)).toBeGreaterThan(3 * span(expirations[0]!));
    expect(chain("SPY").length).toBeGreaterThanOrEqual(8_000);
    expect(chain("QQQ").length).toBeGreaterThanOrEqual(8_000);
  });

  it("prints an early-close session's flow between 09:30 and 13:00 ET", () => {
    const session = "2026-11-27";
    const contracts = buildChain(spy, marketClock("2026-11-25"), null, 0.5, new Random(2).fork("SPY"));
    const prints = sessionPrints(spy, contracts, session, spy.price, spy.price, 400, new Random(3));
    expect(prints.length).toBeGreaterThan(300);
    const [open, close] = [sessionOpenAt(session).getTime(), sessionCloseAt(session).getTime()];
    expect(close - open).toBe(3.5 * 3_600_000);
    for (const p of prints) {
      const t = Date.parse(p.executedAt);
      expect(t).toBeGreaterThanOrEqual(open);
      expect(t).toBeLessThan(close);
    }
  });
});

describe("seeded test market (through the local endpoint)", () => {
  neonConfig.fetchEndpoint = (host, p) => `http://${host}:${p}/sql`;
  const sql = neon(`postgresql://app:${testSqlPassword()}@127.0.0.1:${process.env.TEST_SQL_PORT}/market`);

  it("has a snapshot, 252 IV sessions per optionable underlying and at most 30 history sessions per contract", async () => {
    const [state] = await sql.query("select version, session_date::text as session, risk_free_rate from market_state");
    expect(state?.risk_free_rate).toBe(DEFAULT_RISK_FREE_RATE);
    // The generator's sessions only: a loaded file (the global setup's Cboe SPX tables of 2022) adds its session's IVs.
    const iv = await sql.query(
      "select symbol, count(*)::int as n from iv_daily where date > (select session_date - 400 from market_state) group by symbol",
    );
    expect(iv.length).toBeGreaterThan(5);
    for (const r of iv) expect(r.n).toBe(252);
    const [hist] = await sql.query("select max(n)::int as max from (select count(*) as n from option_daily group by option_symbol) t");
    expect(hist?.max).toBe(30);
  });

  it("keeps 7 sessions of flow prints, each in its own partition with every index valid, each classified by the quote rule against its own NBBO", async () => {
    const sessions = await sql.query(
      "select distinct session_date::text as session, tableoid::regclass::text as partition from flow_prints",
    );
    expect(sessions).toHaveLength(7);
    for (const s of sessions) expect(s.partition).toBe(flowPartitionName(s.session as string));
    // Indexes re-created after the bulk load cover every partition (an index `ON ONLY` the parent is invalid).
    const invalid = await sql.query(
      `select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid
        where not i.indisvalid and i.indrelid in (select 'flow_prints'::regclass union all select inhrelid from pg_inherits where inhparent = 'flow_prints'::regclass)`,
    );
    expect(invalid).toEqual([]);
    const indexes = await sql.query(
      `select count(*)::int as n from pg_inherits where inhparent in (select indexrelid from pg_index where indrelid = 'flow_prints'::regclass)`,
    );
    // Nine indexes (the key and eight more) on each of the seven sessions' partitions.
    expect(indexes[0]!.n).toBeGreaterThanOrEqual(9 * 7);
    const prints = await sql.query(
      "select price, bid, ask, side, sentiment, option_type, strike, size, premium, underlying_price, otm_pct, print_class from flow_prints limit 2000",
    );
    expect(prints.length).toBeGreaterThan(100);
    for (const p of prints) {
      expect(p.side).toBe(classifyFill(p.price, p.bid, p.ask));
      expect(p.premium).toBeCloseTo(p.price * p.size * 100, 6);
      expect(p.otm_pct).toBe(otmPercent(p.option_type, p.strike, p.underlying_price));
      expect(p.print_class).toBe("regular");
    }
  });

  it("prices every stored quote with bid ≤ ask and the spot of its underlying", async () => {
    const [bad] = await sql.query(
      "select count(*)::int as n from option_quotes o join equity_quotes e on e.symbol = o.underlying where o.ask < o.bid or o.underlying_price <> e.price",
    );
    expect(bad?.n).toBe(0);
  });
});
