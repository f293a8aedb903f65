import { describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import { bookContractGex, bookGamma, contractGex, gammaBook, type GexContract } from "../../src/analytics/gamma-book";
import { flipRegimeOf, gexProfile, gexWalls, regimeOf, type GexStrike } from "../../src/analytics/gex";
import vectors from "../fixtures/volatility-gex-vectors.json";
import { SPX_MARKET, SPX_SPOT, spxContracts, spxRows } from "../support/spx-gex-fixture";
import { expectServedExposure } from "../support/served-exposure";

const contract = (c: Partial<GexContract> & Pick<GexContract, "strike" | "side">): GexContract => ({
  expiration: "2026-02-20",
  openInterest: 1000,
  multiplier: 100,
  iv: 0.25,
  T: 30 / 365,
  ...c,
});

describe("per-contract gamma exposure", () => {
  it("reproduces the hand check on the SPX 2022-02-04 row 'Mon Feb 07 2022 4400' (Γ·OI·100·S²·0.01, puts negated)", () => {
    const v = vectors.gexHandCheck;
    expect(contractGex("call", v.call.gamma, v.call.oi, 100, v.spot)).toBeCloseTo(v.call.gex_per_1pct, 4);
    expect(contractGex("put", v.put.gamma, v.put.oi, 100, v.spot)).toBeCloseTo(v.put.gex_per_1pct, 4);
    expect(v.put.gex_per_1pct).toBeLessThan(0);
  });

  it("re-prices gamma exactly as the chain serves it (bsm gamma per $1) and scales by the multiplier", () => {
    const market = { r: 0.045, q: 0.015 };
    const cases = [
      contract({ strike: 95, side: "call" }),
      contract({ strike: 105, side: "put", iv: 0.6, T: 2 / 365 }),
      contract({ strike: 100, side: "call", multiplier: 10, T: 1.5 }),
    ];
    const book = gammaBook(cases, market);
    cases.forEach((c, k) => {
      for (const x of [80, 100, 123.45]) {
        const gamma = bsm({ S: x, K: c.strike, T: c.T, r: market.r, q: market.q, sigma: c.iv!, side: c.side }).gamma;
        expect(Math.abs(bookGamma(book, k, x) - gamma)).toBeLessThanOrEqual(1e-13 * gamma);
        const expected = contractGex(c.side, gamma, c.openInterest!, c.multiplier, x);
        expect(Math.abs(bookContractGex(book, k, x) - expected)).toBeLessThanOrEqual(1e-12 * Math.abs(expected));
      }
    });
    expect(bookContractGex(book, 2, 100) / bookGamma(book, 2, 100)).toBeCloseTo(1000 * 10 * 100 * 100 * 0.01, 6);
  });

  it("drops contracts without IV, without open interest, or expired, and counts them", () => {
    const book = gammaBook(
      [
        contract({ strike: 100, side: "call" }),
        contract({ strike: 100, side: "put", iv: null }),
        contract({ strike: 100, side: "put", iv: 0 }),
        contract({ strike: 100, side: "put", openInterest: null }),
        contract({ strike: 100, side: "put", openInterest: 0 }),
        contract({ strike: 100, side: "put", T: 0 }),
        contract({ strike: 100, side: "put", iv: Number.NaN }),
      ],
      { r: 0, q: 0 },
    );
    expect(book.n).toBe(1);
    expect(book.excluded).toBe(6);
  });
});

describe("regime, flip regime and walls", () => {
  it("regime follows the sign of net GEX; zero, or rounding noise around it, is neutral", () => {
    expect(regimeOf(5, 10)).toBe("positive");
    expect(regimeOf(-5, 10)).toBe("negative");
    expect(regimeOf(0, 0)).toBe("neutral");
    expect(regimeOf(1e-3, 1e10)).toBe("neutral");
    expect(regimeOf(1e-1, 1e10)).toBe("positive");
  });

  it("a call and a put that cancel exactly make a neutral book", () => {
    const p = gexProfile(
      gammaBook([contract({ strike: 100, side: "call" }), contract({ strike: 100, side: "put" })], { r: 0.03, q: 0 }),
      101,
    );
    expect(p.netGex).toBe(0);
    expect(p.totalCallGex).toBeGreaterThan(0);
    expect(p.regime).toBe("neutral");
  });

  it("serves whole dollars: a book worth less than half a dollar per 1% is neutral with every value 0", () => {
    const farBook = gammaBook([contract({ strike: 200, side: "call", openInterest: 1, T: 2 / 365 })], { r: 0.03, q: 0 });
    expect(bookContractGex(farBook, 0, 100)).toBeGreaterThan(0);
    const far = gexProfile(farBook, 100);
    expect(far.strikes).toEqual([{ strike: 200, callGex: 0, putGex: 0, netGex: 0 }]);
    expect([far.totalCallGex, far.netGex, far.regime]).toEqual([0, 0, "neutral"]);
    const book = gexProfile(
      gammaBook([contract({ strike: 100, side: "call" }), contract({ strike: 95, side: "put" })], { r: 0.03, q: 0 }),
      101,
    );
    for (const s of book.strikes) expectServedExposure(s);
    expectServedExposure({ callGex: book.totalCallGex, putGex: book.totalPutGex, netGex: book.netGex });
    expect(book.regime).toBe(book.netGex > 0 ? "positive" : "negative");
  });

  it("an empty selection is neutral with no flip and no walls", () => {
    expect(gexProfile(gammaBook([], { r: 0, q: 0 }), 100)).toMatchObject({
      strikes: [],
      netGex: 0,
      regime: "neutral",
      gammaFlip: null,
      flipRegime: null,
      callWallStrike: null,
      putWallStrike: null,
    });
  });

  it("flip regime compares stock price with the flip, null without one", () => {
    expect(flipRegimeOf(101, 100)).toBe("positive");
    expect(flipRegimeOf(99, 100)).toBe("negative");
    expect(flipRegimeOf(100, 100)).toBe("neutral");
    expect(flipRegimeOf(100, null)).toBeNull();
  });

  const row = (strike: number, callGex: number, putGex: number): GexStrike => ({ strike, callGex, putGex, netGex: callGex + putGex });

  it("call wall is the largest call exposure and put wall the most negative put exposure, not the net extremes", () => {
    // Net exposure alone would pick 110 (largest positive net) and 90 (most negative net).
    const rows = [row(90, 1, -8), row(100, 20, -15), row(110, 9, 0)];
    expect(gexWalls(rows, 100)).toEqual({ callWallStrike: 100, putWallStrike: 100 });
  });

  it("ties go to the strike nearest spot, then to the lower strike", () => {
    expect(gexWalls([row(90, 5, -5), row(105, 5, -5)], 100)).toEqual({ callWallStrike: 105, putWallStrike: 105 });
    expect(gexWalls([row(95, 5, -5), row(105, 5, -5)], 100)).toEqual({ callWallStrike: 95, putWallStrike: 95 });
  });

  it("a side without exposure falls back to the strike with the largest absolute net exposure", () => {
    expect(gexWalls([row(90, 0, -3), row(100, 0, -7), row(110, 0, -1)], 100)).toEqual({ callWallStrike: 100, putWallStrike: 100 });
    expect(gexWalls([row(90, 2, 0), row(110, 6, 0)], 100)).toEqual({ callWallStrike: 110, putWallStrike: 110 });
    const putsOnly = gexProfile(
      gammaBook([contract({ strike: 95, side: "put" }), contract({ strike: 90, side: "put", openInterest: 50 })], { r: 0, q: 0 }),
      100,
    );
    expect(putsOnly).toMatchObject({ totalCallGex: 0, regime: "negative", putWallStrike: 95, callWallStrike: 95 });
  });
});

describe("GEX profile of the SPX 2022-02-04 close (trimmed Cboe quote table)", () => {
  const rows = spxRows();
  const profile = gexProfile(gammaBook(spxContracts(), SPX_MARKET), SPX_SPOT);

  /** Written here from the formulas, sharing nothing with the code under test. */
  function independent(gammaOf: (r: (typeof rows)[number]) => number) {
    const byStrike = new Map<number, { call: number; put: number }>();
    for (const r of rows) {
      if (!(r.iv > 0 && r.openInterest > 0)) continue;
      const dollars = gammaOf(r) * r.openInterest * 100 * SPX_SPOT * SPX_SPOT * 0.01;
      const s = byStrike.get(r.strike) ?? { call: 0, put: 0 };
      if (r.side === "call") s.call += dollars;
      else s.put -= dollars;
      byStrike.set(r.strike, s);
    }
    const strikes = [...byStrike.entries()].sort((a, b) => a[0] - b[0]);
    const call = strikes.reduce((t, [, s]) => t + s.call, 0);
    const put = strikes.reduce((t, [, s]) => t + s.put, 0);
    const callWall = strikes.reduce((best, cur) => (cur[1].call > best[1].call ? cur : best))[0];
    const putWall = strikes.reduce((best, cur) => (cur[1].put < best[1].put ? cur : best))[0];
    return { byStrike, call, put, net: call + put, callWall, putWall };
  }
  const { r, q } = SPX_MARKET;
  const ours = independent((c) => {
    const v = c.iv * Math.sqrt(c.T);
    const d1 = (Math.log(SPX_SPOT / c.strike) + (r - q + (c.iv * c.iv) / 2) * c.T) / v;
    return (Math.exp(-q * c.T) * Math.exp((-d1 * d1) / 2)) / Math.sqrt(2 * Math.PI) / (SPX_SPOT * v);
  });

  it("matches an independent computation: every strike, the totals and both walls", () => {
    expect(profile.strikes.length).toBe(ours.byStrike.size);
    for (const s of profile.strikes) {
      const o = ours.byStrike.get(s.strike)!;
      // Served in whole dollars: within half a dollar of the exact value.
      expect(Math.abs(s.callGex - o.call)).toBeLessThanOrEqual(1e-9 * Math.abs(o.call) + 0.5);
      expect(Math.abs(s.putGex - o.put)).toBeLessThanOrEqual(1e-9 * Math.abs(o.put) + 0.5);
      expectServedExposure(s);
    }
    expect(profile.totalCallGex / ours.call).toBeCloseTo(1, 10);
    expect(profile.totalPutGex / ours.put).toBeCloseTo(1, 10);
    expect(profile.netGex / ours.net).toBeCloseTo(1, 9);
    expect(profile.callWallStrike).toBe(ours.callWall);
    expect(profile.putWallStrike).toBe(ours.putWall);
  });

  it("signs: calls ≥ 0, puts ≤ 0 at every strike; a short-gamma (negative) regime of about −$10bn per 1%", () => {
    for (const s of profile.strikes) {
      expect(s.callGex).toBeGreaterThanOrEqual(0);
      expect(s.putGex).toBeLessThanOrEqual(0);
    }
    expect(profile.regime).toBe("negative");
    expect(profile.netGex).toBeLessThan(-0.9e10);
    expect(profile.netGex).toBeGreaterThan(-1.2e10);
    expect(profile).toMatchObject({ callWallStrike: 4700, putWallStrike: 4500 });
  });

  it("agrees with Cboe's own printed gammas: totals within 5%, net (their difference) within 20%, the walls", () => {
    const cboe = independent((c) => c.cboeGamma);
    expect(Math.sign(cboe.net)).toBe(Math.sign(profile.netGex));
    expect(Math.abs(profile.totalCallGex / cboe.call - 1)).toBeLessThan(0.05);
    expect(Math.abs(profile.totalPutGex / cboe.put - 1)).toBeLessThan(0.05);
    expect(Math.abs(profile.netGex / cboe.net - 1)).toBeLessThan(0.2);
    expect(profile.putWallStrike).toBe(cboe.putWall);
    // Cboe's call wall is 4600, with 4700 second: our 4700 must be among its top two.
    const cboeTopCalls = [...cboe.byStrike.entries()].sort((a, b) => b[1].call - a[1].call).map(([k]) => k);
    expect(cboeTopCalls.slice(0, 2)).toContain(profile.callWallStrike);
  });

  it("has a flip above spot, so spot is below it (flip regime negative, like the net regime)", () => {
    expect(profile.gammaFlip).not.toBeNull();
    expect(profile.gammaFlip!).toBeGreaterThan(SPX_SPOT);
    expect(profile.gammaFlip!).toBeLessThan(SPX_SPOT * 1.05);
    expect(profile.gammaFlip).toBe(Math.round(profile.gammaFlip! * 100) / 100);
    expect(profile.flipRegime).toBe("negative");
  });
});
