import { describe, expect, it } from "vitest";
import {
  BLOCK_MIN_CONTRACTS,
  BLOCK_MIN_PREMIUM,
  classifyFill,
  CLUSTER_GAP_MS,
  executionTypes,
  isOpening,
  otmPercent,
  premiumOf,
  printOpenInterest,
  printVolatility,
  sentimentOf,
  signedPremium,
  type ExecutionInput,
} from "../../src/analytics/flow";
import { bsm } from "../../src/analytics/black-scholes";
import { impliedVolatility } from "../../src/analytics/implied-volatility";
import vectors from "../fixtures/published-vectors.json";

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

describe("flow print measures", () => {
  it("prices premium as price × size × 100 to the cent", () => {
    expect(premiumOf(2.4, 1)).toBe(240);
    expect(premiumOf(0.07, 3)).toBe(21);
    // The sample's largest print: 22,849 VIX contracts at 0.52 (condition 106).
    expect(premiumOf(0.52, 22_849)).toBe(1_188_148);
    expect(premiumOf(1.5, 2, 10)).toBe(30);
  });

  it("signs moneyness: positive out of the money, negative in the money", () => {
    expect(otmPercent("call", 110, 100)).toBe(10);
    expect(otmPercent("call", 90, 100)).toBe(-10);
    expect(otmPercent("put", 90, 100)).toBe(10);
    expect(otmPercent("put", 110, 100)).toBe(-10);
    // VIX 2016-06-08 12.5 call with the index at 14.75 (first print of the Cboe sample): in the money.
    expect(otmPercent("call", 12.5, 14.75)).toBe(-15.2542);
    // Without a spot: 0, as the print's underlyingPrice (never null: the spec's table has no nulls).
    expect(otmPercent("call", 12.5, null)).toBe(0);
    expect(otmPercent("put", 12.5, 0)).toBe(0);
  });

  it("flags opening prints by size above open interest, never without it", () => {
    expect(isOpening(100, 50)).toBe(true);
    expect(isOpening(50, 50)).toBe(false);
    expect(isOpening(1, 0)).toBe(true);
    expect(isOpening(10, null)).toBe(false);
  });

  it("takes the session's open interest, else the latest earlier one, else 0 and not opening", () => {
    expect(printOpenInterest(100, "2026-11-18", { openInterest: 50, sessionDate: "2026-11-18" })).toEqual({
      openInterest: 50,
      opening: true,
      source: "session",
    });
    expect(printOpenInterest(10, "2026-11-18", { openInterest: 50, sessionDate: "2026-11-13" })).toEqual({
      openInterest: 50,
      opening: false,
      source: "earlier",
    });
    const unknown = { openInterest: 0, opening: false, source: "none" };
    expect(printOpenInterest(100, "2026-11-18", { openInterest: 50, sessionDate: "2026-11-19" })).toEqual(unknown);
    expect(printOpenInterest(100, "2026-11-18", null)).toEqual(unknown);
  });

  it("keeps complex and canceled prints out of sentiment and net premium", () => {
    expect(sentimentOf("call", "ask", "complex")).toBe("neutral");
    expect(sentimentOf("put", "bid", "canceled")).toBe("neutral");
    expect(sentimentOf("put", "bid", "regular")).toBe("bullish");
    expect(signedPremium("ask", "regular", 1500)).toBe(1500);
    expect(signedPremium("bid", "regular", 1000)).toBe(-1000);
    expect(signedPremium("mid", "regular", 1000)).toBe(0);
    expect(signedPremium("unknown", "regular", 1000)).toBe(0);
    expect(signedPremium("ask", "complex", 1500)).toBe(0);
    expect(signedPremium("bid", "canceled", 1500)).toBe(0);
  });
});

describe("IV and delta of a print: the fallback chain", () => {
  // A 3-month call at 100 with spot 100, and the same contract 20 in the money.
  const terms = { K: 100, T: 0.25, r: 0.04, q: 0.01, side: "call" as const };
  const S = 100;
  const at = (sigma: number, K = terms.K) => bsm({ S, ...terms, K, sigma });

  it("solves the trade price when it lies inside the no-arbitrage bounds (trade)", () => {
    const price = at(0.3).price;
    const v = printVolatility({ price, bid: price - 0.1, ask: price + 0.1, spot: S, terms });
    expect(v.source).toBe("trade");
    expect(v.iv).toBeCloseTo(0.3, 10);
    expect(v.delta).toBeCloseTo(at(0.3).delta, 10);
  });

  it("solves the NBBO mid when the trade price is outside the bounds but the mid is not (mid)", () => {
    const itm = { ...terms, K: 80 };
    const fair = at(0.3, 80).price;
    // Below the discounted forward intrinsic value (≈ 20.15): no volatility prices it.
    const through = 19.5;
    expect(impliedVolatility({ price: through, S, ...itm })).toBeNull();
    const v = printVolatility({ price: through, bid: fair - 0.2, ask: fair + 0.2, spot: S, terms: itm });
    expect(v.source).toBe("mid");
    expect(v.iv).toBeCloseTo(impliedVolatility({ price: fair, S, ...itm })!, 12);
    expect(v.delta).toBeCloseTo(bsm({ S, ...itm, sigma: v.iv }).delta, 12);
    // Above the spot (a call's upper bound) is no better than below intrinsic.
    expect(printVolatility({ price: 101, bid: fair - 0.2, ask: fair + 0.2, spot: S, terms: itm }).source).toBe("mid");
  });

  it("takes the contract's snapshot IV when neither price can be solved (snapshot), delta re-priced at the print's spot", () => {
    const itm = { ...terms, K: 80 };
    const snapshot = { iv: 0.35, delta: 0.5 };
    // No market, a crossed one, and a market whose mid is below intrinsic too.
    for (const [bid, ask] of [
      [null, null],
      [21, 20],
      [0, 1],
    ] as const) {
      const v = printVolatility({ price: 19.5, bid, ask, spot: S, terms: itm, snapshot });
      expect(v, `${bid}/${ask}`).toEqual({ iv: 0.35, delta: bsm({ S, ...itm, sigma: 0.35 }).delta, source: "snapshot" });
    }
    // Forward-priced (Cboe volatility indexes) or without a spot: the snapshot's own delta, else 0.
    const price = at(0.3).price;
    expect(printVolatility({ price, bid: null, ask: null, spot: S, terms, forwardPriced: true, snapshot })).toEqual({
      iv: 0.35,
      delta: 0.5,
      source: "snapshot",
    });
    expect(printVolatility({ price, bid: null, ask: null, spot: null, terms, snapshot: { iv: 0.35, delta: null } })).toEqual({
      iv: 0.35,
      delta: 0,
      source: "snapshot",
    });
  });

  it("answers 0 and 0 with nothing to go on (none), the spec's convention for a missing IV", () => {
    const price = at(0.3).price;
    const none = { iv: 0, delta: 0, source: "none" };
    expect(printVolatility({ price: 19.5, bid: null, ask: null, spot: S, terms: { ...terms, K: 80 } })).toEqual(none);
    expect(printVolatility({ price, bid: price - 0.1, ask: price + 0.1, spot: null, terms, snapshot: { iv: null, delta: 0.4 } })).toEqual(
      none,
    );
    expect(
      printVolatility({ price, bid: price - 0.1, ask: price + 0.1, spot: S, terms, forwardPriced: true, snapshot: { iv: 0, delta: 0 } }),
    ).toEqual(none);
    expect(printVolatility({ price, bid: null, ask: null, spot: 0, terms })).toEqual(none);
  });

  it("prefers the vendor's IV and delta at the trade (trade)", () => {
    const v = printVolatility({
      price: 19.5,
      bid: null,
      ask: null,
      spot: null,
      terms,
      vendor: { iv: 0.9871, delta: 0.8123 },
      forwardPriced: true,
    });
    expect(v).toEqual({ iv: 0.9871, delta: 0.8123, source: "trade" });
  });
});

describe("execution type", () => {
  const T0 = Date.parse("2016-06-01T15:21:33.600Z");
  const print = (over: Partial<ExecutionInput> = {}): ExecutionInput => ({
    contract: "VIX160720C00026000",
    at: T0,
    exchange: 5,
    side: "ask",
    size: 10,
    premium: 600,
    printClass: "regular",
    ...over,
  });

  it("calls fills of one contract and side on several venues within the window a sweep", () => {
    expect(executionTypes([print(), print({ at: T0 + 200, exchange: 6 })])).toEqual(["sweep", "sweep"]);
    // Chained fills: each within 500 ms of the previous one, 800 ms end to end.
    expect(executionTypes([print(), print({ at: T0 + 400 }), print({ at: T0 + 800, exchange: 6 })])).toEqual(["sweep", "sweep", "sweep"]);
  });

  it("calls same-venue clusters splits, even when a fill is block-sized", () => {
    expect(executionTypes([print(), print({ at: T0 + 125, size: 7000, premium: 420_000 })])).toEqual(["split", "split"]);
    expect(executionTypes([print({ exchange: null }), print({ exchange: null })])).toEqual(["split", "split"]);
  });

  it("calls a lone print at or above 500 contracts or $1M a block, and any other lone print a split", () => {
    expect(BLOCK_MIN_CONTRACTS).toBe(500);
    expect(BLOCK_MIN_PREMIUM).toBe(1_000_000);
    expect(CLUSTER_GAP_MS).toBe(500);
    expect(executionTypes([print({ size: 500, premium: 30_000 })])).toEqual(["block"]);
    expect(executionTypes([print({ size: 20, premium: 1_000_000 })])).toEqual(["block"]);
    expect(executionTypes([print({ size: 499, premium: 999_999.99 })])).toEqual(["split"]);
    expect(executionTypes([print({ size: 1 })])).toEqual(["split"]);
  });

  it("splits clusters by time gap, side, contract and print class", () => {
    const lone = (ps: ExecutionInput[]) => executionTypes(ps.map((p) => ({ ...p, size: 600 })));
    expect(lone([print(), print({ at: T0 + 501, exchange: 6 })])).toEqual(["block", "block"]);
    expect(lone([print(), print({ side: "bid", exchange: 6 })])).toEqual(["block", "block"]);
    expect(lone([print(), print({ contract: "VIX160720P00026000", exchange: 6 })])).toEqual(["block", "block"]);
    expect(lone([print(), print({ printClass: "complex", exchange: 6 })])).toEqual(["block", "block"]);
  });

  it("takes a feed's ISO flag as a sweep on its own", () => {
    expect(executionTypes([print({ iso: true })])).toEqual(["sweep"]);
  });

  it("answers in input order whatever the order of the prints", () => {
    const prints = [
      print({ at: T0 + 5000, size: 800 }),
      print({ at: T0 + 100, exchange: 6 }),
      print({ contract: "X", at: T0 }),
      print({ at: T0 }),
    ];
    expect(executionTypes(prints)).toEqual(["block", "sweep", "split", "sweep"]);
    expect(executionTypes([...prints].reverse())).toEqual(["sweep", "split", "sweep", "block"]);
  });
});
