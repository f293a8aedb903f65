import { describe, expect, it } from "vitest";
import { emptyFold, foldPrints, pointsFrom, type NetFlowPrint } from "../../src/analytics/net-flow-fold";

const T0 = Date.parse("2026-11-27T15:00:00Z");
const print = (session: string, ms: number, extra: Partial<NetFlowPrint> = {}): NetFlowPrint => ({
  executedAt: T0 + ms,
  session,
  optionType: "call",
  side: "ask",
  premium: 1_000,
  size: 10,
  regular: true,
  ...extra,
});

describe("foldPrints", () => {
  it("sums ask minus bid premium of regular prints per minute; complex and mid prints count for volume only", () => {
    const { fold, touched } = foldPrints(emptyFold(), [
      print("2026-11-27", 1_000),
      print("2026-11-27", 2_000, { side: "bid", optionType: "put", premium: 300, size: 3 }),
      print("2026-11-27", 3_000, { regular: false }),
      print("2026-11-27", 61_000, { side: "mid" }),
    ]);
    expect(touched).toBe(T0);
    expect(fold.minutes).toEqual([
      { minute: T0, netCall: 1_000, netPut: -300, netVolume: 7, volume: 23 },
      { minute: T0 + 60_000, netCall: 0, netPut: 0, netVolume: 0, volume: 10 },
    ]);
    expect(pointsFrom(fold, T0 + 60_000)).toEqual([{ t: T0 + 60_000, netCallPremium: 1_000, netPutPremium: -300, netVolume: 7 }]);
  });

  it("a late print moves its minute and every later point; the touched minute is the earliest", () => {
    const first = foldPrints(emptyFold(), [print("2026-11-27", 1_000), print("2026-11-27", 121_000)]).fold;
    const { fold, touched } = foldPrints(first, [print("2026-11-27", 5_000, { premium: 50 })]);
    expect(touched).toBe(T0);
    expect(pointsFrom(fold, touched!).map((p) => p.netCallPremium)).toEqual([1_050, 2_050]);
    // The fold given is left as it was.
    expect(first.minutes[0]!.netCall).toBe(1_000);
  });

  it("a new session starts the sums over; a print of an earlier session is not counted", () => {
    const yesterday = foldPrints(emptyFold(), [print("2026-11-27", 1_000)]).fold;
    const { fold, touched } = foldPrints(yesterday, [print("2026-11-30", 86_400_000 * 3), print("2026-11-27", 2_000)]);
    expect(fold.session).toBe("2026-11-30");
    expect(touched).toBe(T0 + 86_400_000 * 3);
    expect(fold.minutes).toHaveLength(1);
    expect(fold.minutes[0]!.netCall).toBe(1_000);
  });
});
