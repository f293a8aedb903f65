import { beforeAll, describe, expect, it } from "vitest";
import { newYorkInstant } from "../src/domain/calendar";
import { gexRoute, type GexProfileBody } from "../src/routes/gamma-exposure/gex";
import cboeGex from "./fixtures/cboe/SPX_2022-02-04_gex_subset.csv?raw";
import { bearer, newAccount } from "./support/accounts";
import { contractBody } from "./support/contract";
import { bumpMarketVersion, marketSql } from "./support/market-db";
import { callWith, expectError, testEnv } from "./support/worker";

/** The SPX 2022-02-04 quote table (global setup loads it with the production loader), served as of its session. */
const REPLAY = { MARKET_CLOCK: "2022-02-04T15:45:00-05:00" };
const YEAR_MS = 365 * 86_400_000;

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount()).keys[0]!.key);
});

const gex = async (query = "") => contractBody(gexRoute, await callWith(REPLAY, `/v1/gex/SPX${query}`, auth));

/** Standard normal density. */
const phi = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);

/**
 * The same exposure computed here from the stored contracts, with a textbook BSM gamma:
 * Γ = e^{−qT}·φ(d1)/(S·σ·√T), exposure = ±Γ·OI·multiplier·S²·0.01 per strike.
 */
async function independentGex(spot: number) {
  const sql = marketSql();
  const [market] = await sql.query("select risk_free_rate as r from market_state");
  const [underlying] = await sql.query("select coalesce(dividend_yield, 0) as q from underlyings where symbol = 'SPX'");
  const r = market!.r as number;
  const q = underlying!.q as number;
  const rows = await sql.query(
    `select expiration::text as expiration, strike, side, settlement, iv, open_interest as oi, multiplier, as_of
     from option_quotes where underlying = 'SPX' and expiration between '2022-02-04' and '2022-04-05'`,
  );
  const byStrike = new Map<number, { call: number; put: number }>();
  for (const c of rows) {
    const iv = c.iv as number | null;
    const oi = c.oi as number | null;
    if (!iv || !oi) continue;
    const expiry = c.settlement === "am" ? newYorkInstant(c.expiration as string, 9, 30) : newYorkInstant(c.expiration as string, 16);
    const T = Math.max((expiry.getTime() - new Date(c.as_of as string).getTime()) / YEAR_MS, 60_000 / YEAR_MS);
    const vt = iv * Math.sqrt(T);
    const d1 = (Math.log(spot / (c.strike as number)) + (r - q + (iv * iv) / 2) * T) / vt;
    const exposure = ((Math.exp(-q * T) * phi(d1)) / (spot * vt)) * oi * (c.multiplier as number) * spot * spot * 0.01;
    const at = byStrike.get(c.strike as number) ?? { call: 0, put: 0 };
    if (c.side === "call") at.call += exposure;
    else at.put -= exposure;
    byStrike.set(c.strike as number, at);
  }
  const strikes = [...byStrike].map(([strike, v]) => ({ strike, ...v }));
  const argmax = (score: (s: (typeof strikes)[number]) => number) => strikes.reduce((a, b) => (score(b) > score(a) ? b : a)).strike;
  const call = strikes.reduce((t, s) => t + s.call, 0);
  const put = strikes.reduce((t, s) => t + s.put, 0);
  return { call, put, net: call + put, callWall: argmax((s) => s.call), putWall: argmax((s) => -s.put), strikes: strikes.length };
}

describe("GEX of the SPX 2022-02-04 chain, loaded from Cboe's file and replayed as of its session", () => {
  let profile: GexProfileBody;
  beforeAll(async () => {
    profile = await gex();
  });

  it("matches an independent computation from the stored contracts: totals, net, walls", async () => {
    const ours = await independentGex(profile.stockPrice);
    expect(profile.stockPrice).toBe(4500.5298);
    expect(profile.strikes.length).toBe(ours.strikes);
    expect(profile.totalCallGex / ours.call).toBeCloseTo(1, 8);
    expect(profile.totalPutGex / ours.put).toBeCloseTo(1, 8);
    expect(profile.netGex / ours.net).toBeCloseTo(1, 6);
    expect(profile.callWallStrike).toBe(ours.callWall);
    expect(profile.putWallStrike).toBe(ours.putWall);
  });

  it("agrees with Cboe's printed gammas on the sign of net GEX and its order of magnitude, and on the put wall", () => {
    // Cboe's own Γ (4 decimals) × OI × 100 × S² × 0.01 over the same rows (both roots, ≤ 60 days, ±10%).
    let net = 0;
    const putByStrike = new Map<number, number>();
    for (const line of cboeGex.trim().split("\n").slice(1)) {
      const [, , strike, , callGamma, callOi, , putGamma, putOi] = line.split(",").map(Number) as number[];
      const scale = 100 * profile.stockPrice ** 2 * 0.01;
      net += (callGamma! * callOi! - putGamma! * putOi!) * scale;
      putByStrike.set(strike!, (putByStrike.get(strike!) ?? 0) + putGamma! * putOi! * scale);
    }
    expect(Math.sign(profile.netGex)).toBe(Math.sign(net));
    expect(profile.regime).toBe(net > 0 ? "positive" : "negative");
    expect(Math.abs(profile.netGex / net)).toBeGreaterThan(0.5);
    expect(Math.abs(profile.netGex / net)).toBeLessThan(2);
    expect(profile.putWallStrike).toBe([...putByStrike].reduce((a, b) => (b[1] > a[1] ? b : a))[0]);
  });

  it("counts both roots: AM-settled SPX and PM-settled SPXW", async () => {
    const [roots] = await marketSql().query(
      `select count(distinct root)::int as n from option_quotes where underlying = 'SPX' and expiration between '2022-02-04' and '2022-04-05'
       and open_interest > 0 and iv > 0`,
    );
    expect(roots!.n).toBe(2);
    const weeklies = await gex("?maxDte=3");
    expect(weeklies.totalCallGex).toBeLessThan(profile.totalCallGex);
  });

  it("has a gamma flip that moves by cents, not strikes, when spot moves by $0.10", async () => {
    expect(profile.gammaFlip).not.toBeNull();
    expect(profile.flipRegime).toBe(profile.stockPrice > profile.gammaFlip! ? "positive" : "negative");
    const sql = marketSql();
    await sql.query("update equity_quotes set price = price + 0.1 where symbol = 'SPX'");
    try {
      await bumpMarketVersion();
      const moved = await gex();
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
