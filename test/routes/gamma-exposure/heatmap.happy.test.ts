import { beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../../../src/domain/calendar";
import { etToday } from "../../support/market-db";
import { apiClient, type ApiClient } from "../../support/api-client";
import { gexReaders } from "../../support/gex-readers";
import { expectServedExposure } from "../../support/served-exposure";

let api: ApiClient;
beforeAll(async () => {
  api = await apiClient();
});

const { profile, heatmap } = gexReaders(() => api.auth);

describe("GET /v1/gex/{symbol}/heatmap", () => {
  it("keeps cells inside spot ±35% by default, each with call, put and net values", async () => {
    const map = await heatmap("SPY", "");
    const p = await profile("");
    expect(map.stockPrice).toBe(p.stockPrice);
    expect(map.gammaFlip).toBe(p.gammaFlip);
    expect(map.callWallStrike).toBe(p.callWallStrike);
    expect(map.putWallStrike).toBe(p.putWallStrike);
    expect(map.metric).toBe("net");
    expect(map.cells.length).toBeGreaterThan(0);
    expect("truncated" in map).toBe(false);
    for (const cell of map.cells) {
      expect(cell.strike).toBeGreaterThanOrEqual(map.stockPrice * 0.65);
      expect(cell.strike).toBeLessThanOrEqual(map.stockPrice * 1.35);
      expect(cell.callGex).toBeGreaterThanOrEqual(0);
      expect(cell.putGex).toBeLessThanOrEqual(0);
      expectServedExposure(cell);
      expect(map.expirations).toContain(cell.expiration);
    }
    expect(map.expirations).toEqual([...map.expirations].sort());
    // Summed over expirations, the cells are the profile's strikes (each served value within half a dollar of its exact one).
    const byStrike = new Map<number, { net: number; cells: number }>();
    for (const cell of map.cells) {
      const sum = byStrike.get(cell.strike) ?? { net: 0, cells: 0 };
      byStrike.set(cell.strike, { net: sum.net + cell.netGex, cells: sum.cells + 1 });
    }
    for (const s of p.strikes.filter((s) => byStrike.has(s.strike))) {
      const sum = byStrike.get(s.strike)!;
      expect(Math.abs(sum.net - s.netGex)).toBeLessThanOrEqual(sum.cells + 1);
    }
  });

  it("searches one-sided when one bound is given, and echoes metric without effect", async () => {
    const wide = await heatmap("SPY", "?strikeMin=0&maxDte=730");
    const spot = wide.stockPrice;
    const above = await heatmap("SPY", `?strikeMin=${spot}&maxDte=730&metric=call`);
    expect(above.metric).toBe("call");
    expect(above.cells.every((c) => c.strike >= spot)).toBe(true);
    expect(above.cells).toEqual(wide.cells.filter((c) => c.strike >= spot));
    expect(Math.max(...above.cells.map((c) => c.strike))).toBeGreaterThan(spot * 1.35);
    const below = await heatmap("SPY", `?strikeMax=${spot}&maxDte=730&metric=put`);
    expect(below.cells).toEqual(wide.cells.filter((c) => c.strike <= spot));
  });

  it("covers a window of future expirations only", async () => {
    const map = await heatmap("SPY", "?minDte=30&maxDte=90&strikeMin=0");
    const today = etToday();
    for (const e of map.expirations) {
      expect(e >= addDays(today, 30) && e <= addDays(today, 90)).toBe(true);
    }
  });
});
