import { beforeAll, describe, expect, it } from "vitest";
import { GEX_DISCLAIMER } from "../../../src/analytics/gex";
import { addDays } from "../../../src/domain/calendar";
import { etToday } from "../../support/market-db";
import { gexRoute, type GexProfileBody } from "../../../src/routes/gamma-exposure/gex";
import { gexHeatmapRoute } from "../../../src/routes/gamma-exposure/heatmap";
import { bearer, newAccount } from "../../support/accounts";
import { contractBody } from "../../support/contract";
import { call, expectError } from "../../support/worker";
import { expectServedExposure } from "../../support/served-exposure";

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount()).keys[0]!.key);
});

const profile = async (query: string) => contractBody(gexRoute, await call(`/v1/gex/SPY${query}`, auth));
const heatmap = async (symbol: string, query: string) =>
  contractBody(gexHeatmapRoute, await call(`/v1/gex/${symbol}/heatmap${query}`, auth));

/** The profile's own arithmetic and the spec's sign rules. */
function expectConsistent(p: GexProfileBody): void {
  let calls = 0;
  let puts = 0;
  for (const s of p.strikes) {
    expect(s.callGex).toBeGreaterThanOrEqual(0);
    expect(s.putGex).toBeLessThanOrEqual(0);
    expectServedExposure(s);
    calls += s.callGex;
    puts += s.putGex;
  }
  // Totals sum the unrounded strikes: within half a dollar per strike of the served ones.
  expect(Math.abs(p.totalCallGex - calls)).toBeLessThanOrEqual(0.5 * (p.strikes.length + 1));
  expect(Math.abs(p.totalPutGex - puts)).toBeLessThanOrEqual(0.5 * (p.strikes.length + 1));
  expectServedExposure({ callGex: p.totalCallGex, putGex: p.totalPutGex, netGex: p.netGex });
  expect(p.regime).toBe(p.netGex > 0 ? "positive" : p.netGex < 0 ? "negative" : "neutral");
  if (p.gammaFlip === null) expect(p.flipRegime).toBeNull();
  else expect(p.flipRegime).toBe(p.stockPrice > p.gammaFlip ? "positive" : p.stockPrice < p.gammaFlip ? "negative" : "neutral");
  expect(p.strikes.map((s) => s.strike)).toEqual([...p.strikes.map((s) => s.strike)].sort((a, b) => a - b));
  expect(p.disclaimer).toBe(GEX_DISCLAIMER);
}

describe("GET /v1/gex/{symbol}", () => {
  it("answers a consistent profile for the default window (0-60 days)", async () => {
    const p = await profile("");
    expect(p.symbol).toBe("SPY");
    expect(p.stockPrice).toBeGreaterThan(0);
    expect(p.strikes.length).toBeGreaterThan(10);
    expectConsistent(p);
    expect(p.callWallStrike).not.toBeNull();
    expect(p.putWallStrike).not.toBeNull();
    // Walls: the largest call exposure and the most negative put exposure (docs/gex.md).
    const top = (score: (s: GexProfileBody["strikes"][number]) => number) =>
      p.strikes.reduce((best, s) => (score(s) > score(best) ? s : best));
    expect(p.callWallStrike).toBe(top((s) => s.callGex).strike);
    expect(p.putWallStrike).toBe(top((s) => -s.putGex).strike);
  });

  it("widens with maxDte and its alias, up to 730 days", async () => {
    const near = await profile("?maxDte=7");
    const far = await profile("?dteMax=730");
    expectConsistent(near);
    expectConsistent(far);
    expect(far.totalCallGex).toBeGreaterThan(near.totalCallGex);
    expect(await profile("?maxDte=730")).toEqual(far);
  });

  it("selects same-day expirations with zeroDte or maxDte=0", async () => {
    const zero = await profile("?zeroDte=true");
    expect(await profile("?maxDte=0")).toEqual(zero);
    const today = etToday();
    const map = await heatmap("SPY", "?zeroDte=true&strikeMin=0");
    expect(map.expirations.every((e) => e === today)).toBe(true);
  });

  it("refuses bad windows with the spec's codes", async () => {
    await expectError(await call("/v1/gex/SPY?maxDte=731", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/SPY?zeroDte=true&maxDte=5", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/SPY?zeroDte=maybe", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/SPY?minDte=-1", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/SPY?minDte=10&maxDte=5", auth), 400, "invalid_range");
    await expectError(await call("/v1/gex/SPY?minDte=1&dteMin=2", auth), 400, "invalid_parameter");
    const body = await expectError(await call("/v1/gex/SPY?maxDte=abc", auth), 400, "invalid_parameter");
    expect(body.message).toContain("maxDte");
  });

  it("answers 404 for an unknown symbol, 400 for a malformed or missing one", async () => {
    await expectError(await call("/v1/gex/NOPEX", auth), 404, "not_found");
    await expectError(await call("/v1/gex/spy!", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/", auth), 400, "missing_symbol");
  });
});

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

  it("refuses a bad metric, an inverted band and bad DTE values", async () => {
    await expectError(await call("/v1/gex/SPY/heatmap?metric=gamma", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/SPY/heatmap?strikeMin=500&strikeMax=400", auth), 400, "invalid_range");
    await expectError(await call("/v1/gex/SPY/heatmap?strikeMin=-5", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/SPY/heatmap?maxDte=800", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/SPY/heatmap?zeroDte=true&maxDte=3", auth), 400, "invalid_parameter");
    await expectError(await call("/v1/gex/NOPEX/heatmap", auth), 404, "not_found");
  });

  it("covers a window of future expirations only", async () => {
    const map = await heatmap("SPY", "?minDte=30&maxDte=90&strikeMin=0");
    const today = etToday();
    for (const e of map.expirations) {
      expect(e >= addDays(today, 30) && e <= addDays(today, 90)).toBe(true);
    }
  });
});
