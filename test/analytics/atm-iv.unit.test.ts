import { describe, expect, it } from "vitest";
import { newYorkInstant } from "../../src/domain/calendar";
import { atmIv, atmIv30, constantMaturityIv, IV30_YEARS, type ChainIv, type StrikeIv } from "../../src/analytics/atm-iv";
import { blackImpliedVolatility } from "../../src/analytics/implied-volatility";
import ivIndex from "../fixtures/cboe/UnderlyingIVIndexesEOD_2017-06-01_SPX.csv?raw";
import iwm from "../fixtures/ivolatility/IWM_2019-10-15_options_1545_atm.csv?raw";

const YEAR_MS = 365 * 86_400_000;

describe("ATM IV of one expiry", () => {
  it("is the mean of the call and put IVs of the strike at the forward", () => {
    const quotes: StrikeIv[] = [
      { strike: 100, side: "call", iv: 0.2 },
      { strike: 100, side: "put", iv: 0.22 },
      { strike: 105, side: "call", iv: 0.19 },
    ];
    expect(atmIv(quotes, 100)).toBeCloseTo(0.21, 15);
  });

  it("interpolates linearly in ln K between the strikes bracketing the forward", () => {
    const quotes: StrikeIv[] = [
      { strike: 90, side: "put", iv: 0.5 },
      { strike: 95, side: "call", iv: 0.22 },
      { strike: 95, side: "put", iv: 0.24 },
      { strike: 105, side: "call", iv: 0.18 },
      { strike: 105, side: "put", iv: null }, // unusable: the call alone stands for 105
      { strike: 110, side: "call", iv: 0.01 },
    ];
    const w = Math.log(101 / 95) / Math.log(105 / 95);
    expect(atmIv(quotes, 101)).toBeCloseTo(0.23 + w * (0.18 - 0.23), 15);
  });

  it("is null when the forward lies outside the strikes with an IV", () => {
    const quotes: StrikeIv[] = [
      { strike: 95, side: "call", iv: 0.2 },
      { strike: 105, side: "call", iv: 0 },
    ];
    expect(atmIv(quotes, 100)).toBeNull();
    expect(atmIv(quotes, 94)).toBeNull();
  });
});

describe("constant-maturity IV", () => {
  it("interpolates total variance linearly in time (hand computation)", () => {
    const points = [
      { T: 60 / 365, iv: 0.5 },
      { T: 40 / 365, iv: 0.3 },
      { T: 7 / 365, iv: 0.9 },
      { T: 20 / 365, iv: 0.2 },
    ];
    // (0.2²·20 + 0.3²·40) / 2 = 2.2 variance-days at 30 days.
    expect(constantMaturityIv(points)).toBeCloseTo(Math.sqrt(2.2 / 30), 15);
    expect(constantMaturityIv(points, 40 / 365)).toBe(0.3);
  });

  it("holds the nearest expiry's IV flat outside the listed expiries, skips unusable points, null without any", () => {
    expect(
      constantMaturityIv([
        { T: 45 / 365, iv: 0.3 },
        { T: 90 / 365, iv: 0.4 },
      ]),
    ).toBe(0.3);
    expect(
      constantMaturityIv([
        { T: 5 / 365, iv: 0.3 },
        { T: 12 / 365, iv: 0.25 },
      ]),
    ).toBe(0.25);
    expect(
      constantMaturityIv([
        { T: 0, iv: 0.3 },
        { T: 20 / 365, iv: Number.NaN },
        { T: 40 / 365, iv: 0.2 },
      ]),
    ).toBe(0.2);
    expect(constantMaturityIv([])).toBeNull();
  });

  it("agrees with Cboe LiveVol's IV30…IV360 for SPX on 2017-06-01 to 0.06 vol points", () => {
    // LiveVol fits a cubic spline through the per-expiry ATM IVs; linear total variance stays within 0.06 points of it.
    const [, row] = ivIndex.trim().split("\n");
    const f = row!.split(",");
    const quoted = newYorkInstant("2017-06-01", 16, 15).getTime();
    const tenors = [30, 60, 90, 120, 180, 360].map((days, i) => ({ days, iv: Number(f[2 + i]) }));
    const points = Array.from({ length: Number(f[8]) }, (_, i) => ({
      T: (newYorkInstant(f[9 + 2 * i]!, 16).getTime() - quoted) / YEAR_MS,
      iv: Number(f[10 + 2 * i]) / 100,
    }));
    expect(points).toHaveLength(36);
    for (const { days, iv } of tenors) {
      expect(Math.abs(constantMaturityIv(points, days / 365)! * 100 - iv), `${days} days`).toBeLessThan(0.06);
    }
  });
});

describe("30-day ATM IV of a chain", () => {
  const market = { spot: 100, r: 0.05, q: 0.01 };
  const chain = (T: number, iv: (strike: number) => number): ChainIv[] =>
    [80, 90, 95, 100, 102, 104, 105, 110, 120].flatMap((strike) => [
      { strike, side: "call" as const, iv: iv(strike), T },
      { strike, side: "put" as const, iv: iv(strike), T },
    ]);

  it("is the IV at each expiry's forward, not at spot, interpolated to 30 days", () => {
    // A smile linear in ln(K/F): the ATM-forward IV is exactly 0.2 (0.3) whatever the strikes.
    const smile = (T: number, atm: number) => (k: number) => atm - 0.4 * Math.log(k / (100 * Math.exp(0.04 * T)));
    const T1 = 20 / 365;
    const T2 = 40 / 365;
    const iv = atmIv30([...chain(T2, smile(T2, 0.3)), ...chain(T1, smile(T1, 0.2))], market)!;
    expect(iv).toBeCloseTo(Math.sqrt(2.2 / 30), 14);
    expect(
      atmIv30(
        chain(T1, () => 0.25),
        market,
      ),
    ).toBeCloseTo(0.25, 15);
    expect(IV30_YEARS).toBe(30 / 365);
  });

  it("skips expiries without an ATM IV", () => {
    const T1 = 20 / 365;
    const broken = chain(40 / 365, () => 0.3).map((c) => (c.strike > 100 ? { ...c, iv: null } : c));
    expect(atmIv30([...chain(T1, () => 0.2), ...broken], market)).toBe(0.2);
  });
});

describe("IWM on 2019-10-15 from the 15:45 NBBO (iVolatility sample)", () => {
  /** iVolatility's IV index for IWM that day: ivMean30 (IWM_2019-10-15_IV_Index.csv). */
  const IVOLATILITY_IV_MEAN_30 = 0.1649;
  /** Assumed 3-month T-bill rate in October 2019; it only discounts here, the forward comes from parity. */
  const r = 0.0165;

  it("gives a 30-day ATM IV within 0.25 vol points of iVolatility's ivMean30", () => {
    const asOf = newYorkInstant("2019-10-15", 15, 45).getTime();
    const rows = iwm
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => {
        const f = line.split(",");
        const [m, d, y] = f[6]!.split("/");
        return {
          expiration: `${y}-${m}-${d}`,
          strike: Number(f[7]),
          side: f[8] === "C" ? "call" : "put",
          mid: (Number(f[10]) + Number(f[11])) / 2,
        } as const;
      });
    const points = [...new Set(rows.map((q) => q.expiration))].map((expiration) => {
      const T = (newYorkInstant(expiration, 16).getTime() - asOf) / YEAR_MS;
      const sides = rows.filter((q) => q.expiration === expiration);
      const strikes = [...new Set(sides.map((q) => q.strike))];
      const mid = (k: number, side: string) => sides.find((q) => q.strike === k && q.side === side)!.mid;
      // Put-call parity at the strike where call and put are closest: F = K + e^{rT}(C − P).
      const kStar = strikes.reduce((a, b) => (Math.abs(mid(b, "call") - mid(b, "put")) < Math.abs(mid(a, "call") - mid(a, "put")) ? b : a));
      const F = kStar + Math.exp(r * T) * (mid(kStar, "call") - mid(kStar, "put"));
      const quotes = sides.map((q) => ({
        strike: q.strike,
        side: q.side,
        iv: blackImpliedVolatility(q.mid * Math.exp(r * T), F, q.strike, T, q.side),
      }));
      return { T, iv: atmIv(quotes, F)! };
    });
    expect(points.map((p) => Math.round(p.T * 365))).toEqual([24, 31]);
    expect(Math.abs(constantMaturityIv(points)! - IVOLATILITY_IV_MEAN_30)).toBeLessThan(0.0025);
  });
});
