import { describe, expect, it } from "vitest";
import { cumulativeNetFlow } from "../../src/analytics/net-flow";

const at = (hhmm: string) => Date.parse(`2026-11-20T${hhmm}:00Z`);

describe("cumulative net flow", () => {
  it("sums each minute's net premium from the first minute, in time order, to the cent", () => {
    const series = cumulativeNetFlow([
      { minute: at("14:32"), netCall: -10_000.1, netPut: 0, netVolume: -2, volume: 2 },
      { minute: at("14:31"), netCall: 15_000, netPut: 20_000, netVolume: 5, volume: 7 },
      { minute: at("14:35"), netCall: 0, netPut: -5_000.01, netVolume: 0, volume: 9 },
    ]);
    expect(series.points).toEqual([
      { t: at("14:31"), netCallPremium: 15_000, netPutPremium: 20_000, netVolume: 5 },
      { t: at("14:32"), netCallPremium: 4_999.9, netPutPremium: 20_000, netVolume: 3 },
      { t: at("14:35"), netCallPremium: 4_999.9, netPutPremium: 14_999.99, netVolume: 3 },
    ]);
    expect(series).toMatchObject({ volume: 18, ncp: 4_999.9, npp: 14_999.99 });
  });

  it("is empty without minutes", () => {
    expect(cumulativeNetFlow([])).toEqual({ points: [], volume: 0, ncp: 0, npp: 0 });
  });
});
