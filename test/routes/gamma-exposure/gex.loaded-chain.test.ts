import { beforeAll, describe, expect, it } from "vitest";
import { addDays, newYorkInstant, todayInNewYork } from "../../../src/domain/calendar";
import { gexRoute, type GexProfileBody } from "../../../src/routes/gamma-exposure/gex";
import { gexHeatmapRoute } from "../../../src/routes/gamma-exposure/heatmap";
import { batchQuotesRoute } from "../../../src/routes/quotes-and-options/batch-quotes";
import { chainRoute } from "../../../src/routes/quotes-and-options/chain";
import { optionQuoteRoute } from "../../../src/routes/quotes-and-options/option-quote";
import excerptCsv from "../../fixtures/cboe/SPX_2022-02-04_excerpt.csv?raw";
import gexTableCsv from "../../fixtures/cboe/SPX_2022-02-04_gex_quote_table.csv?raw";
import { bearer, newAccount } from "../../support/accounts";
import { contractBody } from "../../support/contract";
import { bumpMarketVersion, marketSql } from "../../support/market-db";
import { SPX_SPOT } from "../../support/spx-gex-fixture";
import { callWith, expectError, testEnv } from "../../support/worker";

/** The request clock pinned to a New York wall-clock time: the SPX quote table (loaded by the global setup) replayed then. */
const clockAt = (date: string, hours: number, minutes = 0, seconds = 0) => ({
  MARKET_CLOCK: newYorkInstant(date, hours, minutes, seconds).toISOString(),
});
/** 15:45 ET of the file's session, 2022-02-04 (a Friday): no contract of the file expires that day. */
const REPLAY = clockAt("2022-02-04", 15, 45);
/** After that session's close. */
const AFTER_CLOSE = clockAt("2022-02-04", 16, 30);
/** The file's first expiration: SPXW 2022-02-07 (a Monday), PM-settled at 16:00 ET. */
const SAME_DAY = "2022-02-07";
const YEAR_MS = 365 * 86_400_000;

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount()).keys[0]!.key);
});

type Clock = { MARKET_CLOCK: string };
const gexAt = async (clock: Clock, query = "") => contractBody(gexRoute, await callWith(clock, `/v1/gex/SPX${query}`, auth));
const heatmapAt = async (clock: Clock, query = "") =>
  contractBody(gexHeatmapRoute, await callWith(clock, `/v1/gex/SPX/heatmap${query}`, auth));
/** The default GEX window of a clock: 0 to 60 days from its New York date. */
const windowOf = (clock: Clock) => {
  const today = todayInNewYork(new Date(clock.MARKET_CLOCK));
  return { from: today, to: addDays(today, 60) };
};
/** The expiry instant: 09:30 ET for AM-settled SPX, 16:00 ET for PM-settled SPXW (no early close in these months). */
const expiryOf = (expiration: string, settlement: string) =>
  settlement === "am" ? newYorkInstant(expiration, 9, 30) : newYorkInstant(expiration, 16);

/** Standard normal density. */
const phi = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);

/** Per-strike call and put exposures → totals and walls (call: largest call exposure, put: most negative put exposure). */
function summarise(byStrike: Map<number, { call: number; put: number }>) {
  const strikes = [...byStrike].map(([strike, v]) => ({ strike, ...v }));
  const argmax = (score: (s: (typeof strikes)[number]) => number) => strikes.reduce((a, b) => (score(b) > score(a) ? b : a)).strike;
  const call = strikes.reduce((t, s) => t + s.call, 0);
  const put = strikes.reduce((t, s) => t + s.put, 0);
  return { call, put, net: call + put, callWall: argmax((s) => s.call), putWall: argmax((s) => -s.put), strikes: strikes.length };
}

/**
 * The same exposure computed here from the stored contracts as of `clock`, with a textbook BSM gamma:
 * Γ = e^{−qT}·φ(d1)/(S·σ·√T) with T from the clock to the expiry instant, contracts at or past it
 * skipped; exposure = ±Γ·OI·multiplier·S²·0.01 per strike.
 */
async function independentGex(spot: number, clock: Clock, { minDte = 0, maxDte = 60 } = {}) {
  const at = new Date(clock.MARKET_CLOCK).getTime();
  const today = todayInNewYork(new Date(at));
  const sql = marketSql();
  const [market] = await sql.query("select risk_free_rate as r from market_state");
  const [underlying] = await sql.query("select coalesce(dividend_yield, 0) as q from underlyings where symbol = 'SPX'");
  const r = market!.r as number;
  const q = underlying!.q as number;
  const rows = await sql.query(
    `select expiration::text as expiration, strike, side, settlement, iv, open_interest as oi, multiplier
     from option_quotes where underlying = 'SPX' and expiration between $1 and $2`,
    [addDays(today, minDte), addDays(today, maxDte)],
  );
  const byStrike = new Map<number, { call: number; put: number }>();
  for (const c of rows) {
    const iv = c.iv as number | null;
    const oi = c.oi as number | null;
    const T = (expiryOf(c.expiration as string, c.settlement as string).getTime() - at) / YEAR_MS;
    if (!iv || !oi || !(T > 0)) continue;
    const vt = iv * Math.sqrt(T);
    const d1 = (Math.log(spot / (c.strike as number)) + (r - q + (iv * iv) / 2) * T) / vt;
    const exposure = ((Math.exp(-q * T) * phi(d1)) / (spot * vt)) * oi * (c.multiplier as number) * spot * spot * 0.01;
    const sums = byStrike.get(c.strike as number) ?? { call: 0, put: 0 };
    if (c.side === "call") sums.call += exposure;
    else sums.put -= exposure;
    byStrike.set(c.strike as number, sums);
  }
  return summarise(byStrike);
}

/** One contract of the loaded quote tables with Cboe's own Gamma and Open Interest. */
interface VendorContract {
  expiration: string;
  settlement: "am" | "pm";
  strike: number;
  side: "call" | "put";
  gamma: number;
  openInterest: number;
}

/** Both sides of every row of the two files the global setup loads, once per OCC symbol (the loader upserts by symbol). */
function vendorContracts(): VendorContract[] {
  const bySymbol = new Map<string, VendorContract>();
  for (const text of [excerptCsv, gexTableCsv]) {
    // Lines: the name and "Last:", the "Date:" line, the header, then one row per strike (no quoted cells).
    for (const line of text.trim().split(/\r?\n/).slice(3)) {
      const cells = line.split(",");
      const strike = Number(cells[11]);
      for (const [side, symbol, gamma, oi] of [
        ["call", cells[1], cells[9], cells[10]],
        ["put", cells[12], cells[20], cells[21]],
      ] as const) {
        const m = /^(SPXW?)(\d{2})(\d{2})(\d{2})[CP]\d{8}$/.exec(symbol!.trim())!;
        bySymbol.set(m[0], {
          expiration: `20${m[2]}-${m[3]}-${m[4]}`,
          // As the loader reads it: the index's own root settles at the open, SPXW at the close.
          settlement: m[1] === "SPX" ? "am" : "pm",
          strike,
          side,
          gamma: Number(gamma),
          openInterest: Number(oi),
        });
      }
    }
  }
  return [...bySymbol.values()];
}

/**
 * The reference from Cboe's printed gammas, independent of our BSM code: GEX = Γ × OI × 100 × S² × 0.01
 * (calls +, puts −) with S the file's spot, over the contracts of the window that have not expired at `clock`.
 */
function vendorGex(clock: Clock) {
  const at = new Date(clock.MARKET_CLOCK).getTime();
  const { from, to } = windowOf(clock);
  const scale = 100 * SPX_SPOT ** 2 * 0.01;
  const byStrike = new Map<number, { call: number; put: number }>();
  for (const c of vendorContracts()) {
    if (c.expiration < from || c.expiration > to || expiryOf(c.expiration, c.settlement).getTime() <= at) continue;
    const s = byStrike.get(c.strike) ?? { call: 0, put: 0 };
    if (c.side === "call") s.call += c.gamma * c.openInterest * scale;
    else s.put -= c.gamma * c.openInterest * scale;
    byStrike.set(c.strike, s);
  }
  const summary = summarise(byStrike);
  const calls = [...byStrike].sort((a, b) => b[1].call - a[1].call).map(([strike]) => strike);
  return { ...summary, callStrikesByExposure: calls };
}

const emptyProfile = {
  netGex: 0,
  totalCallGex: 0,
  totalPutGex: 0,
  regime: "neutral",
  gammaFlip: null,
  flipRegime: null,
  callWallStrike: null,
  putWallStrike: null,
  strikes: [],
};

describe("GEX of the SPX 2022-02-04 chain, loaded from Cboe's file and replayed as of its session", () => {
  let profile: GexProfileBody;
  beforeAll(async () => {
    profile = await gexAt(REPLAY);
  });

  it("matches an independent computation from the stored contracts as of the request: totals, net, walls", async () => {
    for (const [clock, body] of [
      [REPLAY, profile],
      [AFTER_CLOSE, await gexAt(AFTER_CLOSE)],
    ] as const) {
      const ours = await independentGex(body.stockPrice, clock);
      expect(body.stockPrice).toBe(4500.5298);
      expect(body.strikes.length).toBe(ours.strikes);
      expect(body.totalCallGex / ours.call).toBeCloseTo(1, 8);
      expect(body.totalPutGex / ours.put).toBeCloseTo(1, 8);
      expect(body.netGex / ours.net).toBeCloseTo(1, 6);
      expect(body.callWallStrike).toBe(ours.callWall);
      expect(body.putWallStrike).toBe(ours.putWall);
    }
  });

  it("after the close, is within 10% of Cboe's own gammas in net, call and put totals, with its put wall", async () => {
    const body = await gexAt(AFTER_CLOSE);
    const heatmap = await heatmapAt(AFTER_CLOSE, "?strikeMin=0");
    const cboe = vendorGex(AFTER_CLOSE);
    expect(body.regime).toBe("negative");
    expect(Math.sign(body.netGex)).toBe(Math.sign(cboe.net));
    expect(Math.abs(body.netGex / cboe.net - 1)).toBeLessThan(0.1);
    expect(Math.abs(body.totalCallGex / cboe.call - 1)).toBeLessThan(0.1);
    expect(Math.abs(body.totalPutGex / cboe.put - 1)).toBeLessThan(0.1);
    expect(body.putWallStrike).toBe(cboe.putWall);
    expect(heatmap.putWallStrike).toBe(cboe.putWall);
    // Not the call wall: Cboe's gammas of short-dated out-of-the-money calls are below BSM at its own IVs
    // (SPX 2022-02-18 4700: 0.0009 printed, 0.00115 re-priced), so 4700 is Cboe's second call strike, 4600 its first.
    expect(cboe.callStrikesByExposure.slice(0, 2)).toEqual([4600, 4700]);
    expect(body.callWallStrike).toBe(4700);
    expect(heatmap.callWallStrike).toBe(body.callWallStrike);
  });

  it("counts both roots: AM-settled SPX and PM-settled SPXW", async () => {
    const [roots] = await marketSql().query(
      `select count(distinct root)::int as n from option_quotes where underlying = 'SPX' and expiration between '2022-02-04' and '2022-04-05'
       and open_interest > 0 and iv > 0`,
    );
    expect(roots!.n).toBe(2);
    const weeklies = await gexAt(REPLAY, "?maxDte=3");
    expect(weeklies.totalCallGex).toBeLessThan(profile.totalCallGex);
  });

  it("has a gamma flip that moves by cents, not strikes, when spot moves by $0.10", async () => {
    expect(profile.gammaFlip).not.toBeNull();
    expect(profile.flipRegime).toBe(profile.stockPrice > profile.gammaFlip! ? "positive" : "negative");
    const sql = marketSql();
    await sql.query("update equity_quotes set price = price + 0.1 where symbol = 'SPX'");
    try {
      await bumpMarketVersion();
      const moved = await gexAt(REPLAY);
      expect(moved.stockPrice).toBeCloseTo(4500.6298, 8);
      expect(Math.abs(moved.gammaFlip! - profile.gammaFlip!)).toBeLessThan(1);
    } finally {
      await sql.query("update equity_quotes set price = 4500.5298 where symbol = 'SPX'");
      await bumpMarketVersion();
    }
  });

  it("is refused a pinned clock unless it talks to the local SQL endpoint", async () => {
    const res = await callWith({ ...REPLAY, NEON_HTTP_ENDPOINT: "https://db.example.com/sql" }, "/v1/gex/SPX", auth);
    await expectError(res, 500, "internal_error");
    expect(testEnv.NEON_HTTP_ENDPOINT).toMatch(/^http:\/\/(127\.0\.0\.1|\{host\})/);
  });
});

describe("An expired contract has no gamma: the same chain replayed on 2022-02-07, before and after the SPXW close", () => {
  const BEFORE = clockAt(SAME_DAY, 15);
  const LAST_MINUTE = clockAt(SAME_DAY, 15, 59);
  const AT_CLOSE = clockAt(SAME_DAY, 16);
  const AFTER = clockAt(SAME_DAY, 16, 30);

  it("counts the same-day contracts with their true time to expiry before the close, and nothing of them from it on", async () => {
    const before = await gexAt(BEFORE);
    const after = await gexAt(AFTER);
    for (const [clock, body] of [
      [BEFORE, before],
      [AFTER, after],
    ] as const) {
      const ours = await independentGex(body.stockPrice, clock);
      expect(body.totalCallGex / ours.call).toBeCloseTo(1, 8);
      expect(body.totalPutGex / ours.put).toBeCloseTo(1, 8);
      expect(body.netGex / ours.net).toBeCloseTo(1, 6);
    }
    // An hour from expiry the at-the-money SPXW 2022-02-07 contracts carry more gamma than they did at the 2022-02-04 close.
    expect(before.totalCallGex).toBeGreaterThan(after.totalCallGex);
    expect(before.totalPutGex).toBeLessThan(after.totalPutGex);
    // After the close the default window is the window without today: expired contracts add nothing at all.
    const { disclaimer: _, ...withoutToday } = await gexAt(AFTER, "?minDte=1");
    expect(after).toMatchObject(withoutToday);
    // The heatmap lists the same-day expiration before the close only.
    expect((await heatmapAt(BEFORE, "?strikeMin=0")).expirations[0]).toBe(SAME_DAY);
    expect((await heatmapAt(AFTER, "?strikeMin=0")).expirations).not.toContain(SAME_DAY);
  });

  it("leaves the same-day window empty (not an error) from the settlement instant on", async () => {
    for (const clock of [BEFORE, LAST_MINUTE]) {
      const zero = await gexAt(clock, "?zeroDte=true");
      expect(zero.strikes.length, clock.MARKET_CLOCK).toBeGreaterThan(10);
      expect(zero.totalCallGex).toBeGreaterThan(0);
      expect(await gexAt(clock, "?maxDte=0")).toEqual(zero);
      const map = await heatmapAt(clock, "?zeroDte=true");
      expect(map.expirations).toEqual([SAME_DAY]);
      expect(map.cells.length).toBeGreaterThan(10);
    }
    // One minute from expiry the exposure is not floored or capped: it keeps growing towards the close.
    expect((await gexAt(LAST_MINUTE, "?maxDte=0")).totalCallGex).toBeGreaterThan((await gexAt(BEFORE, "?maxDte=0")).totalCallGex);
    for (const clock of [AT_CLOSE, AFTER]) {
      expect(await gexAt(clock, "?zeroDte=true")).toMatchObject(emptyProfile);
      expect(await gexAt(clock, "?maxDte=0")).toMatchObject(emptyProfile);
      const map = await heatmapAt(clock, "?maxDte=0");
      expect(map).toMatchObject({ expirations: [], cells: [], gammaFlip: null, callWallStrike: null, putWallStrike: null });
    }
  });

  it("computes exposures as of the request's minute: one body per minute", async () => {
    const early = await gexAt(clockAt(SAME_DAY, 15, 0, 5), "?maxDte=0");
    const late = await gexAt(clockAt(SAME_DAY, 15, 0, 55), "?maxDte=0");
    const next = await gexAt(clockAt(SAME_DAY, 15, 1, 0), "?maxDte=0");
    expect(late).toEqual(early);
    expect(early).toEqual(await gexAt(BEFORE, "?maxDte=0"));
    expect(next.totalCallGex).not.toBe(early.totalCallGex);
  });

  it("serves a same-day contract's Greeks until its settlement and null Greeks from it on: quote, batch and chain", async () => {
    const symbol = "SPXW220207C04500000";
    const later = "SPXW220218C04500000";
    const quote = async (clock: Clock) => contractBody(optionQuoteRoute, await callWith(clock, `/v1/options/quotes/${symbol}`, auth));
    const live = await quote(LAST_MINUTE);
    expect(live.gamma).toBeGreaterThan(0);
    expect(live.delta).toBeGreaterThan(0);
    const settled = await quote(AT_CLOSE);
    expect([settled.delta, settled.gamma, settled.theta, settled.vega, settled.rho]).toEqual([null, null, null, null, null]);
    // What the vendor quoted stays: IV, bid and ask.
    expect({ iv: settled.iv, bid: settled.bid, ask: settled.ask, dte: settled.dte }).toEqual({ iv: 25.31, bid: 21.4, ask: 21.9, dte: 0 });

    const batch = await contractBody(batchQuotesRoute, await callWith(AFTER, `/v1/options/quotes?symbols=${symbol},${later}`, auth));
    expect(batch.quotes.find((q) => q.optionSymbol === symbol)!.gamma).toBeNull();
    expect(batch.quotes.find((q) => q.optionSymbol === later)!.gamma).toBeGreaterThan(0);

    const chain = async (clock: Clock, query: string) =>
      contractBody(chainRoute, await callWith(clock, `/v1/chain/SPX?expiration=${SAME_DAY}${query}`, auth));
    const open = await chain(BEFORE, "");
    const closed = await chain(AFTER, "");
    expect(closed.contracts.map((c) => c.optionSymbol)).toEqual(open.contracts.map((c) => c.optionSymbol));
    expect(open.contracts.some((c) => c.gamma !== null)).toBe(true);
    expect(closed.contracts.every((c) => [c.delta, c.gamma, c.theta, c.vega, c.rho].every((g) => g === null))).toBe(true);
    // A delta bound keeps only contracts that have a delta: none of an expiration that has settled.
    expect((await chain(BEFORE, "&deltaMin=0.1&deltaMax=0.9")).contracts.length).toBeGreaterThan(0);
    expect((await chain(AFTER, "&deltaMin=0.1&deltaMax=0.9")).contracts).toEqual([]);
  });
});
