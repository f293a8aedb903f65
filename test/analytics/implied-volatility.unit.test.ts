import { describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import { blackImpliedVolatility, impliedVolatility } from "../../src/analytics/implied-volatility";
import lbr from "../fixtures/lets-be-rational-vectors.json";
import vectors from "../fixtures/published-vectors.json";

type Row = [F: number, K: number, T: number, q: number, sigma: number, black: number | null, iv: number | null, vega: number | null];

describe("implied volatility against the 1,000 Let's Be Rational vectors", () => {
  const rows = lbr.rows as Row[];

  it("recovers the reference IV to 1e-10 relative on every well-posed case", () => {
    let wellPosed = 0;
    let worst = 0;
    for (const [F, K, T, q, , black, reference] of rows) {
      const side = q === 1 ? "call" : "put";
      const intrinsic = Math.max(q * (F - K), 0);
      const upper = q === 1 ? F : K;
      if (!(T > 0) || black === null || reference === null || !(black > intrinsic && black < upper)) continue;
      const iv = blackImpliedVolatility(black, F, K, T, side);
      expect(iv, `F=${F} K=${K} T=${T} ${side}`).not.toBeNull();
      worst = Math.max(worst, Math.abs((iv as number) - reference) / reference);
      wellPosed++;
    }
    expect(wellPosed).toBeGreaterThan(950);
    expect(worst).toBeLessThanOrEqual(1e-10);
  });

  it("answers null, not a clamp, where the price is at or below intrinsic or the maturity is zero", () => {
    let ill = 0;
    for (const [F, K, T, q, , black] of rows) {
      const intrinsic = Math.max(q * (F - K), 0);
      if (black === null || (T > 0 && black > intrinsic)) continue;
      expect(blackImpliedVolatility(black, F, K, T, q === 1 ? "call" : "put")).toBeNull();
      ill++;
    }
    expect(ill).toBeGreaterThan(0);
  });
});

describe("implied volatility from BSM prices", () => {
  it("matches the py_vollib doctest", () => {
    for (const e of vectors.impliedVolExamples as {
      price: number;
      S: number;
      K: number;
      T: number;
      r: number;
      q: number;
      type: string;
      expectedSigma: number;
    }[]) {
      const iv = impliedVolatility({ ...e, side: e.type === "c" ? "call" : "put" });
      expect(Math.abs((iv as number) - e.expectedSigma)).toBeLessThan(1e-9);
    }
  });

  it("round-trips across strikes, maturities, dividends and both sides", () => {
    let checked = 0;
    for (const K of [50, 80, 95, 100, 105, 130, 200]) {
      for (const T of [1 / 365, 7 / 365, 0.25, 1, 3]) {
        for (const sigma of [0.05, 0.2, 0.6, 1.5]) {
          for (const side of ["call", "put"] as const) {
            const inputs = { S: 100, K, T, r: 0.045, q: 0.015, side };
            const { price, vega } = bsm({ ...inputs, sigma });
            // Skip prices that carry no information about sigma in double precision.
            const conditionNumber = price / (vega * 100 * sigma);
            if (!(price > 1e-12) || conditionNumber > 1e6) continue;
            const iv = impliedVolatility({ price, ...inputs });
            expect(iv, `K=${K} T=${T} sigma=${sigma} ${side}`).not.toBeNull();
            expect(Math.abs((iv as number) - sigma) / sigma).toBeLessThan(1e-8);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it("answers null outside the no-arbitrage bounds and for unusable inputs", () => {
    const base = { S: 100, K: 100, T: 0.5, r: 0.05, q: 0, side: "call" as const };
    expect(impliedVolatility({ ...base, price: 0 })).toBeNull();
    expect(impliedVolatility({ ...base, price: 100 })).toBeNull();
    expect(impliedVolatility({ ...base, price: 120 })).toBeNull();
    expect(impliedVolatility({ ...base, K: 80, price: 19 })).toBeNull();
    expect(impliedVolatility({ ...base, side: "put", K: 120, price: 17 })).toBeNull();
    expect(impliedVolatility({ ...base, price: Number.NaN })).toBeNull();
    expect(impliedVolatility({ ...base, T: 0, price: 5 })).toBeNull();
    expect(impliedVolatility({ ...base, S: -1, price: 5 })).toBeNull();
  });
});
