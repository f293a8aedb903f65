import { beforeAll, describe, expect, it } from "vitest";
import { GEX_DISCLAIMER } from "../../../src/analytics/gex";
import { etToday } from "../../support/market-db";
import type { GexProfileBody } from "../../../src/routes/gamma-exposure/gex";
import { apiClient, type ApiClient } from "../../support/api-client";
import { gexReaders } from "../../support/gex-readers";
import { expectServedExposure } from "../../support/served-exposure";

let api: ApiClient;
beforeAll(async () => {
  api = await apiClient();
});

const { profile, heatmap } = gexReaders(() => api.auth);

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
});
