import { neon, neonConfig } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import { classifyFill } from "../../src/analytics/flow";
import { parseOcc } from "../../src/domain/occ";
import { buildChain, marketClock, RISK_FREE_RATE, yearsToExpiry } from "../../scripts/generator/market";
import { Random } from "../../scripts/generator/random";
import { buildUniverse } from "../../scripts/generator/universe";

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
      const repriced = bsm({ S: u.price, K: c.strike, T, r: RISK_FREE_RATE, q: u.dividendYield, sigma: c.iv, side: c.side });
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

describe("seeded test market (through the local endpoint)", () => {
  neonConfig.fetchEndpoint = (host, p) => `http://${host}:${p}/sql`;
  const sql = neon(`postgresql://app:app@127.0.0.1:${process.env.TEST_SQL_PORT}/market`);

  it("has a snapshot, 252 IV sessions per optionable underlying and at most 30 history sessions per contract", async () => {
    const [state] = await sql.query("select version, session_date::text as session, risk_free_rate from market_state");
    expect(state?.risk_free_rate).toBe(RISK_FREE_RATE);
    const iv = await sql.query("select symbol, count(*)::int as n from iv_daily group by symbol");
    expect(iv.length).toBeGreaterThan(5);
    for (const r of iv) expect(r.n).toBe(252);
    const [hist] = await sql.query("select max(n)::int as max from (select count(*) as n from option_daily group by option_symbol) t");
    expect(hist?.max).toBe(30);
  });

  it("keeps 7 sessions of flow prints, each classified by the quote rule against its own NBBO", async () => {
    const sessions = await sql.query("select distinct session_date from flow_prints");
    expect(sessions).toHaveLength(7);
    const prints = await sql.query("select price, bid, ask, side, sentiment, option_type, size, premium from flow_prints limit 2000");
    expect(prints.length).toBeGreaterThan(100);
    for (const p of prints) {
      expect(p.side).toBe(classifyFill(p.price, p.bid, p.ask));
      expect(p.premium).toBeCloseTo(p.price * p.size * 100, 6);
    }
  });

  it("prices every stored quote with bid ≤ ask and the spot of its underlying", async () => {
    const [bad] = await sql.query(
      "select count(*)::int as n from option_quotes o join equity_quotes e on e.symbol = o.underlying where o.ask < o.bid or o.underlying_price <> e.price",
    );
    expect(bad?.n).toBe(0);
  });
});
