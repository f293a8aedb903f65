import { describe, expect, it } from "vitest";
import { brentRoot } from "../../src/analytics/brent";
import { gammaBook, type GexContract, type GexMarket } from "../../src/analytics/gamma-book";
import { gammaFlip, netGexAt, netGexOnLogGrid } from "../../src/analytics/gamma-flip";
import { SPX_MARKET, SPX_SPOT, spxContracts } from "../support/spx-gex-fixture";

/** Each contract's GEX at x written from the formula, independently of the code under test. */
function independentTerms(contracts: readonly GexContract[], { r, q }: GexMarket, x: number): number[] {
  return contracts
    .filter((c) => c.iv! > 0 && c.openInterest! > 0 && c.T > 0)
    .map((c) => {
      const v = c.iv! * Math.sqrt(c.T);
      const d1 = (Math.log(x / c.strike) + (r - q + (c.iv! * c.iv!) / 2) * c.T) / v;
      const gamma = (Math.exp(-q * c.T) * Math.exp((-d1 * d1) / 2)) / (Math.sqrt(2 * Math.PI) * x * v);
      return (c.side === "call" ? 1 : -1) * gamma * c.openInterest! * c.multiplier * x * x * 0.01;
    });
}

const independentNetGex = (contracts: readonly GexContract[], market: GexMarket, x: number) =>
  independentTerms(contracts, market, x).reduce((t, v) => t + v, 0);

/** Every sign change of the independent net GEX on a fine linear grid over [lo, hi], each bisected to 1e-7. */
function independentRoots(contracts: readonly GexContract[], market: GexMarket, lo: number, hi: number, points = 4000): number[] {
  const f = (x: number) => independentNetGex(contracts, market, x);
  const roots: number[] = [];
  let a = lo;
  let fa = f(a);
  for (let i = 1; i <= points; i++) {
    const b = lo + ((hi - lo) * i) / points;
    const fb = f(b);
    if (fa > 0 !== fb > 0) {
      let [l, h, fl] = [a, b, fa];
      while (h - l > 1e-7) {
        const mid = (l + h) / 2;
        const fm = f(mid);
        if (fm > 0 === fl > 0) [l, fl] = [mid, fm];
        else h = mid;
      }
      roots.push((l + h) / 2);
    }
    [a, fa] = [b, fb];
  }
  return roots;
}

const nearest = (roots: number[], spot: number) => roots.reduce((best, r) => (Math.abs(r - spot) < Math.abs(best - spot) ? r : best));

const contract = (strike: number, side: "call" | "put", openInterest = 1000, iv = 0.3, T = 45 / 365): GexContract => ({
  expiration: "2026-03-20",
  strike,
  side,
  openInterest,
  multiplier: 100,
  iv,
  T,
});

describe("Brent's method", () => {
  it("finds roots of smooth functions to the tolerance in few evaluations", () => {
    let evaluations = 0;
    const f = (x: number) => {
      evaluations++;
      return x * x * x - 2 * x - 5;
    };
    const root = brentRoot(f, 2, 3, f(2), f(3), 1e-12);
    expect(Math.abs(root - 2.0945514815423265)).toBeLessThan(1e-12);
    expect(evaluations).toBeLessThan(14); // bisection would need about 40
    const g = (x: number) => Math.cos(x) - x;
    expect(Math.abs(brentRoot(g, 0, 1, g(0), g(1), 1e-12) - 0.7390851332151607)).toBeLessThan(1e-12);
  });

  it("falls back to bisection on a jump and returns a zero endpoint as is", () => {
    const step = (x: number) => (x < Math.PI ? -1 : 1);
    expect(Math.abs(brentRoot(step, 0, 10, -1, 1, 1e-9) - Math.PI)).toBeLessThan(1e-9);
    expect(brentRoot((x) => x - 1, 1, 2, 0, 1, 1e-9)).toBe(1);
    expect(brentRoot((x) => x - 2, 1, 2, -1, 0, 1e-9)).toBe(2);
  });
});

describe("net GEX re-priced at hypothetical spots", () => {
  const market = { r: 0.04, q: 0.01 };
  const mixed = [
    contract(100, "call"),
    contract(95, "put", 3000, 0.45, 1 / 365),
    contract(102, "call", 500, 0.9, 60_000 / (365 * 86_400_000)), // one minute left
    contract(80, "put", 800, 0.35, 2),
    contract(140, "call", 5000, 0.5, 0.01), // peak far above the grid
    contract(60, "put", 5000, 0.5, 0.01), // peak far below the grid
  ];
  const book = gammaBook(mixed, market);

  it("matches the formula at any spot", () => {
    for (const x of [70, 99.5, 100, 101.7, 130]) {
      const terms = independentTerms(mixed, market, x);
      const gross = terms.reduce((t, v) => t + Math.abs(v), 0);
      // ln x − ln K instead of ln(x/K) costs up to ~a·1e-16 in d: 1e-13 relative for the one-minute contract (a ≈ 800).
      expect(Math.abs(netGexAt(book, x) - terms.reduce((t, v) => t + v, 0))).toBeLessThanOrEqual(1e-12 * gross);
    }
  });

  it("the grid's Gaussian recurrence agrees with direct evaluation at every grid point", () => {
    const du = Math.log1p(0.005);
    const u0 = Math.log(80);
    const m = 90;
    const grid = netGexOnLogGrid(book, u0, du, m);
    let gross = 0;
    for (let j = 0; j < m; j++) gross = Math.max(gross, Math.abs(netGexAt(book, Math.exp(u0 + j * du))));
    for (let j = 0; j < m; j++) {
      const direct = netGexAt(book, Math.exp(u0 + j * du));
      expect(Math.abs(grid[j]! - direct), `grid point ${j}`).toBeLessThanOrEqual(1e-12 * gross);
    }
  });
});

describe("gamma flip", () => {
  const market = { r: 0.03, q: 0 };

  it("is null when net GEX keeps one sign over the range", () => {
    expect(gammaFlip(gammaBook([contract(100, "call")], market), 100)).toBeNull();
    expect(gammaFlip(gammaBook([contract(100, "put"), contract(90, "put")], market), 100)).toBeNull();
    expect(gammaFlip(gammaBook([], market), 100)).toBeNull();
  });

  it("is the root where puts below give way to calls above, to a cent", () => {
    const book = [contract(90, "put"), contract(110, "call")];
    const roots = independentRoots(book, market, 80, 120);
    expect(roots).toHaveLength(1);
    const flip = gammaFlip(gammaBook(book, market), 100)!;
    expect(Math.abs(flip - roots[0]!)).toBeLessThan(0.005);
  });

  it("takes the root nearest spot when there are several", () => {
    // Puts at 90 and 110 around a call-heavy 100: negative, positive, negative.
    const book = [contract(90, "put"), contract(100, "call", 2500), contract(110, "put")];
    const roots = independentRoots(book, market, 80, 120);
    expect(roots).toHaveLength(2);
    const gex = gammaBook(book, market);
    for (const spot of [roots[0]! - 3, roots[0]! + 1, 100, roots[1]! - 1, roots[1]! + 3]) {
      expect(Math.abs(gammaFlip(gex, spot)! - nearest(roots, spot)), `spot ${spot}`).toBeLessThan(0.005);
    }
  });

  it("searches only the requested range", () => {
    const book = gammaBook([contract(90, "put"), contract(110, "call")], market);
    const flip = gammaFlip(book, 105)!;
    const distance = Math.abs(flip - 105) / 105;
    expect(distance).toBeGreaterThan(0.02);
    expect(gammaFlip(book, 105, { range: distance - 0.01 })).toBeNull();
    expect(gammaFlip(book, 105, { range: distance + 0.01 })).toBeCloseTo(flip, 6);
  });

  it("is spot itself when net GEX is zero there (a book whose calls and puts cancel)", () => {
    expect(gammaFlip(gammaBook([contract(100, "call"), contract(100, "put")], market), 101.37)).toBe(101.37);
  });

  describe("on the SPX 2022-02-04 close", () => {
    const contracts = spxContracts();
    const book = gammaBook(contracts, SPX_MARKET);
    const flip = gammaFlip(book, SPX_SPOT)!;

    it("equals an independent root search (fine grid and bisection) to a cent", () => {
      const roots = independentRoots(contracts, SPX_MARKET, SPX_SPOT * 0.8, SPX_SPOT * 1.2, 1600);
      expect(roots.length).toBeGreaterThan(0);
      expect(Math.abs(flip - nearest(roots, SPX_SPOT))).toBeLessThan(0.005);
    });

    it("is stable: moving spot by cents to dollars moves the flip by less than a cent", () => {
      for (const move of [-5, -1, -0.1, -0.01, 0.01, 0.1, 1, 5]) {
        expect(Math.abs(gammaFlip(book, SPX_SPOT + move)! - flip), `spot ${move > 0 ? "+" : ""}${move}`).toBeLessThan(0.01);
      }
    });
  });
});
