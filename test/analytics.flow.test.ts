import { describe, expect, it } from "vitest";
import { classifyFill, sentimentOf } from "../src/analytics/flow";
import vectors from "./fixtures/published-vectors.json";

type Row = { contract: string; price: number; bid: number; ask: number; side: string; uw_sentiment: string };

describe("flow fill side and sentiment against the reference trades", () => {
  it("classifies the Cboe sample prints like the research's quote rule (zero bid kept)", () => {
    const rows = (vectors as unknown as { flowSideExamples: { rows: Row[] } }).flowSideExamples.rows;
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const r of rows) {
      const expected =
        r.side.startsWith("ask") || r.side.startsWith("at_ask")
          ? "ask"
          : r.side.startsWith("bid") || r.side.startsWith("at_bid")
            ? "bid"
            : "mid";
      const side = classifyFill(r.price, r.bid, r.ask);
      expect(side, r.contract).toBe(expected);
      const optionType = r.contract.endsWith("C") ? "call" : "put";
      expect(sentimentOf(optionType, side), r.contract).toBe(r.uw_sentiment.split(" ")[0]);
    }
  });

  it("answers unknown without a usable market and treats the exact midpoint as mid", () => {
    expect(classifyFill(1, null, 1.2)).toBe("unknown");
    expect(classifyFill(1, 1.2, 1.0)).toBe("unknown");
    expect(classifyFill(0.01, 0, 0)).toBe("unknown");
    expect(classifyFill(1.1, 1.0, 1.2)).toBe("mid");
    expect(classifyFill(1.3, 1.0, 1.2)).toBe("ask");
    expect(classifyFill(0.9, 1.0, 1.2)).toBe("bid");
    expect(sentimentOf("put", "bid")).toBe("bullish");
    expect(sentimentOf("call", "mid")).toBe("neutral");
  });
});
