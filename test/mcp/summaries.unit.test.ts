import { describe, expect, it } from "vitest";
import { HEATMAP_CELLS, heatmapSummary, NET_FLOW_POINTS, nearSpotProfile, PROFILE_STRIKES, thinnedNetFlow } from "../../src/mcp/summaries";
import type { GexProfileBody } from "../../src/routes/gamma-exposure/gex";
import type { GexHeatmapBody } from "../../src/routes/gamma-exposure/heatmap";
import type { NetFlow } from "../../src/routes/flow/net-flow";

const strike = (k: number, netGex: number) => ({ strike: k, callGex: Math.max(netGex, 0), putGex: Math.min(netGex, 0), netGex });

describe("what the MCP tools keep of large answers", () => {
  it("keeps the GEX profile's strikes nearest spot, in strike order, and everything else", () => {
    const strikes = Array.from({ length: 200 }, (_, i) => strike(400 + i, i % 7));
    const profile = { symbol: "SPY", stockPrice: 500.4, strikes, netGex: 1 } as unknown as GexProfileBody;
    const kept = nearSpotProfile(profile);
    expect(kept.strikes).toHaveLength(PROFILE_STRIKES);
    expect(kept.strikes.map((s) => s.strike)).toEqual(Array.from({ length: PROFILE_STRIKES }, (_, i) => 481 + i));
    expect(kept.netGex).toBe(1);
    const small = { ...profile, strikes: strikes.slice(0, 10) };
    expect(nearSpotProfile(small)).toBe(small);
  });

  it("sums the heatmap per expiration and keeps its largest cells by absolute net GEX", () => {
    const cells = ["2026-11-20", "2026-11-27"].flatMap((expiration, e) =>
      Array.from({ length: 50 }, (_, i) => ({ expiration, ...strike(450 + i, (i - 25) * (e + 1)) })),
    );
    const heatmap = {
      symbol: "SPY",
      stockPrice: 475,
      metric: "net",
      gammaFlip: null,
      callWallStrike: 499,
      putWallStrike: 450,
      asOf: null,
      expirations: ["2026-11-20", "2026-11-27"],
      cells,
    } as GexHeatmapBody;
    const summary = heatmapSummary(heatmap);
    expect(summary).toMatchObject({ symbol: "SPY", cellCount: 100, truncated: false, callWallStrike: 499 });
    expect(summary.byExpiration).toEqual([
      { expiration: "2026-11-20", callGex: 300, putGex: -325, netGex: -25 },
      { expiration: "2026-11-27", callGex: 600, putGex: -650, netGex: -50 },
    ]);
    expect(summary.largestCells).toHaveLength(HEATMAP_CELLS);
    expect(summary.largestCells[0]).toMatchObject({ expiration: "2026-11-27", strike: 450, netGex: -50 });
    const magnitudes = summary.largestCells.map((c) => Math.abs(c.netGex));
    expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a));
  });

  it("thins cumulative net flow to evenly spaced points, first and last kept, in order", () => {
    const points = Array.from({ length: 390 }, (_, i) => ({
      t: `2026-11-18T${String(14 + Math.floor((30 + i) / 60)).padStart(2, "0")}:${String((30 + i) % 60).padStart(2, "0")}:00.000Z`,
      netCallPremium: i,
      netPutPremium: -i,
      netVolume: i,
    }));
    const body = {
      ticker: "SPY",
      retentionDays: 7,
      mode: "cumulative",
      points,
      summary: { volume: 1, ncp: 1, npp: 1, spot: 1 },
    } as NetFlow;
    const thinned = thinnedNetFlow(body);
    expect(thinned.points).toHaveLength(NET_FLOW_POINTS);
    expect(thinned.points[0]).toBe(points[0]);
    expect(thinned.points.at(-1)).toBe(points.at(-1));
    expect(thinned.points.map((p) => p.netCallPremium)).toEqual([...thinned.points.map((p) => p.netCallPremium)].sort((a, b) => a - b));
    expect(thinned.summary).toBe(body.summary);
  });
});
