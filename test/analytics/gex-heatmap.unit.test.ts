import { describe, expect, it } from "vitest";
import { addDays } from "../../src/domain/calendar";
import { gammaBook, type GexContract } from "../../src/analytics/gamma-book";
import { gexByStrike } from "../../src/analytics/gex";
import { gexHeatmap, HEATMAP_MAX_CELLS } from "../../src/analytics/gex-heatmap";
import { SPX_MARKET, SPX_SPOT, spxContracts } from "../support/spx-gex-fixture";
import { expectServedExposure } from "../support/served-exposure";

const market = { r: 0.03, q: 0.01 };

const contract = (strike: number, expiration: string, side: "call" | "put" = "call", openInterest = 100): GexContract => ({
  expiration,
  strike,
  side,
  openInterest,
  multiplier: 100,
  iv: 0.3,
  T: 0.1,
});

/** Both sides at every strike and expiration given. */
function grid(strikes: number[], expirations: string[]): GexContract[] {
  return expirations.flatMap((e) => strikes.flatMap((k) => [contract(k, e, "call"), contract(k, e, "put", 150)]));
}

const strikesOf = (cells: { strike: number }[]) => [...new Set(cells.map((c) => c.strike))].sort((a, b) => a - b);

describe("GEX heatmap", () => {
  it("keeps strikes within ±35% of spot (inclusive) when no bound is given", () => {
    const map = gexHeatmap(gammaBook(grid([64, 65, 100, 135, 136], ["2026-03-20"]), market), 100);
    expect(strikesOf(map.cells)).toEqual([65, 100, 135]);
    expect(map).toMatchObject({ truncated: false, strikeMin: 65, strikeMax: 135 });
  });

  it("applies one bound alone as a one-sided band, and both as given", () => {
    const book = gammaBook(grid([20, 64, 100, 136, 300], ["2026-03-20"]), market);
    expect(strikesOf(gexHeatmap(book, 100, { strikeMin: 64 }).cells)).toEqual([64, 100, 136, 300]);
    expect(strikesOf(gexHeatmap(book, 100, { strikeMax: 100 }).cells)).toEqual([20, 64, 100]);
    expect(strikesOf(gexHeatmap(book, 100, { strikeMin: 64, strikeMax: 136 }).cells)).toEqual([64, 100, 136]);
    expect(gexHeatmap(book, 100, { strikeMin: 150, strikeMax: 120 }).cells).toEqual([]);
  });

  it("cells carry call ≥ 0, put ≤ 0 and their sum; expirations chronological, cells by expiration then strike", () => {
    const map = gexHeatmap(gammaBook(grid([110, 90, 100], ["2026-06-19", "2026-03-20", "2026-04-17"]), market), 100);
    expect(map.expirations).toEqual(["2026-03-20", "2026-04-17", "2026-06-19"]);
    expect(map.cells.map((c) => `${c.expiration} ${c.strike}`)).toEqual(
      map.expirations.flatMap((e) => [90, 100, 110].map((k) => `${e} ${k}`)),
    );
    for (const c of map.cells) {
      expect(c.callGex).toBeGreaterThan(0);
      expect(c.putGex).toBeLessThan(0);
      expectServedExposure(c);
    }
  });

  it("has cells only where a contract carries exposure (no open interest, no cell)", () => {
    const contracts = [
      contract(100, "2026-03-20"),
      { ...contract(105, "2026-03-20"), openInterest: 0 },
      contract(105, "2026-04-17", "put"),
    ];
    const map = gexHeatmap(gammaBook(contracts, market), 100);
    expect(map.cells.map((c) => [c.expiration, c.strike, c.callGex > 0, c.putGex < 0])).toEqual([
      ["2026-03-20", 100, true, false],
      ["2026-04-17", 105, false, true],
    ]);
  });

  it("sums to the profile's per-strike exposure over expirations (SPX 2022-02-04, ±2% band)", () => {
    const book = gammaBook(spxContracts(), SPX_MARKET);
    const map = gexHeatmap(book, SPX_SPOT, { strikeMin: SPX_SPOT * 0.98, strikeMax: SPX_SPOT * 1.02 });
    expect(map.cells.length).toBeGreaterThan(100);
    for (const row of gexByStrike(book, SPX_SPOT).filter((r) => r.strike >= SPX_SPOT * 0.98 && r.strike <= SPX_SPOT * 1.02)) {
      const cells = map.cells.filter((c) => c.strike === row.strike);
      // Each served value is within half a dollar of its exact sum.
      const tolerance = 0.5 * (cells.length + 1) + 1e-12 * Math.abs(row.callGex - row.putGex);
      expect(Math.abs(cells.reduce((t, c) => t + c.callGex, 0) - row.callGex)).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(cells.reduce((t, c) => t + c.putGex, 0) - row.putGex)).toBeLessThanOrEqual(tolerance);
    }
  });

  describe("the cell cap", () => {
    const expirations = Array.from({ length: 60 }, (_, i) => addDays("2026-03-02", 7 * i));

    it("is 5,000 cells; whole strikes are kept nearest spot first and truncated is set", () => {
      const strikes = Array.from({ length: 100 }, (_, i) => 75 + 0.5 * i); // 6,000 cells, all inside ±35%
      const map = gexHeatmap(gammaBook(grid(strikes, expirations), market), 99.8);
      expect(HEATMAP_MAX_CELLS).toBe(5000);
      expect(map.truncated).toBe(true);
      expect(map.cells).toHaveLength(83 * 60); // 83 whole strikes fit, an 84th would not
      // Nearest to 99.8: 100, 99.5, 100.5, 99, … — 42 strikes from 100 up and 41 from 99.5 down.
      expect(strikesOf(map.cells)).toEqual(Array.from({ length: 83 }, (_, i) => 79.5 + 0.5 * i));
      expect(map.expirations).toEqual(expirations);
    });

    it("is not hit at exactly the cap", () => {
      const strikes = Array.from({ length: 83 }, (_, i) => 80 + 0.5 * i);
      const contracts = [...grid(strikes, expirations), ...grid([125], expirations.slice(0, 20))]; // 4,980 + 20
      const map = gexHeatmap(gammaBook(contracts, market), 100);
      expect(map.cells).toHaveLength(5000);
      expect(map.truncated).toBe(false);
    });

    it("stops at the first strike that does not fit: a farther one never fills the gap", () => {
      const contracts = [
        ...grid([100], ["2026-03-20", "2026-04-17", "2026-05-15"]), // 3 cells, nearest
        ...grid([103], ["2026-03-20", "2026-04-17", "2026-05-15"]), // 3 cells, does not fit in 5
        ...grid([110], ["2026-03-20"]), // 1 cell that would fit
      ];
      const map = gexHeatmap(gammaBook(contracts, market), 100, { maxCells: 5 });
      expect(strikesOf(map.cells)).toEqual([100]);
      expect(map.truncated).toBe(true);
    });

    it("keeps the earliest expirations of a single strike that alone exceeds the cap", () => {
      const map = gexHeatmap(gammaBook(grid([100, 101], expirations.slice(0, 4)), market), 100, { maxCells: 3 });
      expect(map.cells.map((c) => [c.expiration, c.strike])).toEqual(expirations.slice(0, 3).map((e) => [e, 100]));
      expect(map.truncated).toBe(true);
    });
  });
});
