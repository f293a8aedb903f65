import { beforeAll, describe, expect, it } from "vitest";
import { ivContextRoute } from "../../../src/routes/volatility/iv-context";
import { topIvRoute, topIvrRoute, type TopIvItem } from "../../../src/routes/volatility/top-iv";
import vectors from "../../fixtures/volatility-gex-vectors.json";
import { bearer, newAccount } from "../../support/accounts";
import { contractBody } from "../../support/contract";
import { vixCloses } from "../../support/vix-closes";
import { addDays, bumpMarketVersion, daysBetween, marketSql } from "../../support/market-db";
import { call, expectError } from "../../support/worker";

/** VIX closes (Cboe's VIX_History.csv) as a percent "IV" series, oldest first. */
const closes = vixCloses.map((c) => ({ date: c.date, iv: c.close }));

let auth: RequestInit;
let session: string;
beforeAll(async () => {
  auth = bearer((await newAccount()).keys[0]!.key);
  const [state] = await marketSql().query("select session_date::text as d from market_state");
  session = state!.d as string;
});

/**
 * Stores a VIX window as the daily IV of a fresh index symbol, shifted so that `vectorDate` is the
 * loaded session (the 52-week window is calendar days, so a shift keeps it), then tells the edge.
 */
async function storeVixAs(symbol: string, vectorDate: string, keep: (rows: typeof closes) => typeof closes): Promise<void> {
  const shift = daysBetween(vectorDate, session);
  const sql = marketSql();
  await sql.query(
    `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage)
     values ($1, 'VIX as IV (test)', 'index', 'https://example.com/vix.png', false, false) on conflict do nothing`,
    [symbol],
  );
  const rows = keep(closes.filter((c) => c.date <= vectorDate));
  await sql.query(
    `insert into iv_daily (symbol, date, iv) select $1, d::date, v from unnest($2::text[], $3::float8[]) as t(d, v)
     on conflict (symbol, date) do update set iv = excluded.iv`,
    [symbol, rows.map((r) => addDays(r.date, shift)), rows.map((r) => r.iv / 100)],
  );
  await bumpMarketVersion();
}

describe("GET /v1/iv/{symbol}", () => {
  it("answers the IV context of a listed stock from the loaded session", async () => {
    const body = await contractBody(ivContextRoute, await call("/v1/iv/SPY", auth));
    expect(body.symbol).toBe("SPY");
    expect(body.asOf).toBe(session);
    expect(body.currentIV).toBeGreaterThan(0);
    expect(body.ivHigh52w).toBeGreaterThanOrEqual(body.currentIV);
    expect(body.ivLow52w).toBeLessThanOrEqual(body.currentIV);
    expect(body.ivr).not.toBeNull();
    expect(body.ivp).not.toBeNull();
  });

  const v = vectors.ivRankPercentile_VIXasIV["2022-06-10"];

  it("ranks a 365-day window as the published VIX vector does (2022-06-10)", async () => {
    await storeVixAs("VIXCAL", "2022-06-10", (rows) => rows.filter((r) => r.date > addDays("2022-06-10", -365)));
    const body = await contractBody(ivContextRoute, await call("/v1/iv/VIXCAL", auth));
    expect(body.currentIV).toBeCloseTo(v.vixClose, 8);
    expect(body.ivHigh52w).toBeCloseTo(v.window365cal_high, 8);
    expect(body.ivLow52w).toBeCloseTo(v.window365cal_low, 8);
    expect(body.ivr!).toBeCloseTo(v.ivRank_365cal, 3);
  });

  it("gives the strictly-below percentile of the 251 prior sessions, and null below 20 observations", async () => {
    await storeVixAs("VIXSES", "2022-06-10", (rows) => rows.slice(-252));
    const body = await contractBody(ivContextRoute, await call("/v1/iv/VIXSES", auth));
    expect(body.ivr!).toBeCloseTo(v.ivRank_252, 3);
    expect(body.ivp!).toBeCloseTo(v.ivPercentile_strictlyBelow_prior251, 3);

    await storeVixAs("VIXNEW", "2022-06-10", (rows) => rows.slice(-20));
    const young = await contractBody(ivContextRoute, await call("/v1/iv/VIXNEW", auth));
    expect(young.ivp).toBeNull();
    expect(young.ivr).not.toBeNull();
  });

  it("answers zeros and nulls for an underlying without any IV", async () => {
    await storeVixAs("NOIVX", "2022-06-10", () => []);
    const body = await contractBody(ivContextRoute, await call("/v1/iv/NOIVX", auth));
    expect(body).toMatchObject({ currentIV: 0, ivr: null, ivp: null, ivHigh52w: 0, ivLow52w: 0, asOf: session });
  });

  it("answers 404 for an unknown symbol, 400 for a malformed or missing one", async () => {
    await expectError(await call("/v1/iv/NOPEX", auth), 404, "not_found");
    await expectError(await call("/v1/iv/bad$", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/iv/", auth), 400, "missing_symbol");
  });
});

describe("GET /v1/stocks/top-iv and /v1/stocks/top-ivr", () => {
  const ordered = (items: TopIvItem[], key: "stockIV" | "ivr") => {
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1]!, items[i]!];
      expect(a[key] > b[key] || (a[key] === b[key] && a.symbol < b.symbol), `${a.symbol} before ${b.symbol}`).toBe(true);
    }
  };

  /** Stocks arranged for the rules: one above 200% IV, one just below, and two tied. */
  const arranged = { HIVX: 2.5, MIVX: 1.99, TIEA: 1.7, TIEB: 1.7 };
  let eligible: number;
  beforeAll(async () => {
    const sql = marketSql();
    for (const [symbol, iv] of Object.entries(arranged)) {
      await sql.query(
        `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage)
         values ($1, $1, 'stock', 'https://example.com/logo.png', true, false) on conflict do nothing`,
        [symbol],
      );
      // A year of history below today's value, and one week ago 10 points lower.
      await sql.query(
        `insert into iv_daily (symbol, date, iv)
         select $1, $2::date - k, case when k = 7 then $3 - 0.1 else $3 * 0.5 end from generate_series(0, 300) k
         on conflict (symbol, date) do update set iv = excluded.iv`,
        [symbol, session, iv],
      );
      await sql.query("update iv_daily set iv = $3 where symbol = $1 and date = $2", [symbol, session, iv]);
    }
    await bumpMarketVersion();
    const [row] = await sql.query(
      `select count(*)::int as n from iv_daily i join underlyings u using (symbol), market_state m
       where i.date = m.session_date and u.asset_type = 'stock' and i.iv > 0 and i.iv <= 2`,
    );
    eligible = row!.n as number;
  });

  it("ranks stocks by IV, 20 by default, IV above 200% excluded, ties by symbol", async () => {
    const body = await contractBody(topIvRoute, await call("/v1/stocks/top-iv", auth));
    expect(body.stocks).toHaveLength(Math.min(20, eligible));
    ordered(body.stocks, "stockIV");
    const symbols = body.stocks.map((s) => s.symbol);
    expect(symbols).not.toContain("HIVX");
    expect(symbols).toContain("MIVX");
    expect(symbols.indexOf("TIEB") - symbols.indexOf("TIEA")).toBe(1);
    for (const s of body.stocks) {
      expect(s.stockIV).toBeLessThanOrEqual(200);
      expect(s.ivr).toBeGreaterThanOrEqual(0);
      expect(s.ivr).toBeLessThanOrEqual(100);
      expect(s.logoUrl).toMatch(/^https?:\/\//);
    }
    const mivx = body.stocks.find((s) => s.symbol === "MIVX")!;
    expect(mivx).toMatchObject({ stockIV: 199, ivr: 100, name: "MIVX" });
    expect(mivx.ivChange1w).toBeCloseTo(10, 8);
  });

  it("ranks stocks by IV rank with the same fields", async () => {
    const body = await contractBody(topIvrRoute, await call("/v1/stocks/top-ivr?limit=100", auth));
    expect(body.stocks).toHaveLength(Math.min(100, eligible));
    ordered(body.stocks, "ivr");
    const iv = await contractBody(topIvRoute, await call("/v1/stocks/top-iv?limit=100", auth));
    expect(new Set(body.stocks.map((s) => s.symbol))).toEqual(new Set(iv.stocks.map((s) => s.symbol)));
    for (const s of body.stocks) expect(iv.stocks.find((r) => r.symbol === s.symbol)).toEqual(s);
  });

  it("caps limit at 100 silently and refuses limits below 1 or not integers", async () => {
    const res = await call("/v1/stocks/top-iv?limit=1000", auth);
    const body = await contractBody(topIvRoute, res);
    expect(body.stocks.length).toBeLessThanOrEqual(100);
    expect(res.headers.get("X-Limit-Clamped")).toBeNull();
    const five = await contractBody(topIvRoute, await call("/v1/stocks/top-iv?limit=5", auth));
    expect(five.stocks).toEqual(body.stocks.slice(0, 5));
    await expectError(await call("/v1/stocks/top-iv?limit=0", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/stocks/top-ivr?limit=2.5", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/stocks/top-ivr?limit=ten", auth), 400, "invalid_parameter");
  });
});
