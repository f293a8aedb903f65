import { describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import vectors from "../fixtures/published-vectors.json";

type Inputs = { S: number; K: number; T: number; r: number; q: number; sigma: number; type: "c" | "p" };
type Vector = { source: string; inputs: Inputs; published: Record<string, number>; exact?: Record<string, number> };

const priced = (i: Inputs) => bsm({ ...i, side: i.type === "c" ? "call" : "put" });

/** Our value for a published field name, converted to the unit the source prints. */
function ours(field: string, r: ReturnType<typeof bsm>): number | undefined {
  const table: Record<string, number> = {
    price: r.price,
    price_approx: r.price,
    delta: r.delta,
    gamma: r.gamma,
    vegaPer1pct: r.vega,
    "vegaPer1.00": r.vega * 100,
    thetaPerCalendarDay: r.theta,
    thetaPerYear: r.theta * 365,
    "thetaPerCalendarDay*365": r.theta * 365,
    rhoPer1pct: r.rho,
    "rhoPer1.00": r.rho * 100,
  };
  return table[field];
}

/** Half a unit in the last printed decimal: the precision the source actually published. */
function printedTolerance(value: number): number {
  const decimals = (String(value).split(".")[1] ?? "").length;
  return decimals >= 10 ? Math.abs(value) * 1e-10 + 1e-13 : 0.5 * 10 ** -decimals + 1e-12;
}

describe("Black-Scholes-Merton against published textbook values", () => {
  for (const v of vectors.bsm as unknown as Vector[]) {
    it(v.source, () => {
      const r = priced(v.inputs);
      let compared = 0;
      for (const [field, value] of Object.entries(v.published)) {
        const mine = ours(field, r);
        if (mine === undefined) continue;
        expect(Math.abs(mine - value), `${field}: ours ${mine} vs published ${value}`).toBeLessThanOrEqual(printedTolerance(value));
        compared++;
      }
      for (const [field, value] of Object.entries(v.exact ?? {})) {
        const mine = ours(field, r);
        if (mine === undefined) continue;
        expect(Math.abs(mine - value), `${field} vs 40-digit value`).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(value)));
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
    });
  }

  it("Black-76 is BSM on the forward with q = r (py_vollib doctest)", () => {
    const [v] = vectors.black76 as {
      inputs: { F: number; K: number; T: number; r: number; sigma: number };
      published: { price: number; undiscounted: number };
    }[];
    const { F, K, T, r, sigma } = v!.inputs;
    const price = bsm({ S: F, K, T, r, q: r, sigma, side: "call" }).price;
    expect(price).toBeCloseTo(v!.published.price, 12);
    expect(price * Math.exp(r * T)).toBeCloseTo(v!.published.undiscounted, 12);
  });

  it("serves theta per calendar day, vega and rho per 1 point (unit conventions)", () => {
    const base = { S: 100, K: 100, T: 0.5, r: 0.03, q: 0.01, sigma: 0.25, side: "call" as const };
    const r = bsm(base);
    const h = 1e-5;
    const bump = (d: Partial<typeof base>) => bsm({ ...base, ...d }).price;
    expect(r.vega).toBeCloseTo(((bump({ sigma: base.sigma + h }) - bump({ sigma: base.sigma - h })) / (2 * h)) * 0.01, 8);
    expect(r.rho).toBeCloseTo(((bump({ r: base.r + h }) - bump({ r: base.r - h })) / (2 * h)) * 0.01, 8);
    expect(r.theta).toBeCloseTo(-((bump({ T: base.T + h }) - bump({ T: base.T - h })) / (2 * h)) / 365, 8);
    expect(r.gamma).toBeCloseTo((bump({ S: 100 + 1e-3 }) - 2 * r.price + bump({ S: 100 - 1e-3 })) / 1e-6, 5);
  });

  it("at expiry an option is worth its intrinsic value with a step delta", () => {
    expect(bsm({ S: 105, K: 100, T: 0, r: 0.05, q: 0, sigma: 0.2, side: "call" })).toMatchObject({ price: 5, delta: 1, gamma: 0 });
    expect(bsm({ S: 95, K: 100, T: 0, r: 0.05, q: 0, sigma: 0.2, side: "call" })).toMatchObject({ price: 0, delta: 0 });
    expect(bsm({ S: 95, K: 100, T: 0, r: 0.05, q: 0, sigma: 0.2, side: "put" })).toMatchObject({ price: 5, delta: -1 });
  });
});
