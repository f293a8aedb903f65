import { yearsToExpiry } from "../../src/domain/market-clock";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import { classifyFill } from "../../src/analytics/flow";
import { impliedVolatility } from "../../src/analytics/implied-volatility";
import { parseCboeTrades, type CboeTrade } from "../../ingest/sources/cboe/trades";
import { classifyTrades, sessionSpots, type FlowPrint, type StoredQuote } from "../../ingest/flow/classify-trades";
import { flowContext, writeFlowPrints } from "../../ingest/flow/store-prints";
import { ingestDatabase } from "../support/ingest-database";

/** 259 real prints of 11 VIX contracts (see test/fixtures/cboe/README.md); fixture line = `line`. */
const excerpt = readFileSync("test/fixtures/cboe/VIX_2016-06-01_trades_excerpt.csv", "utf8");
const malformed = readFileSync("test/fixtures/cboe/VIX_trades_malformed_rows.csv", "utf8");
const HEADER = excerpt.slice(0, excerpt.indexOf("\n"));
const PRICING = { rate: 0.005, dividendYield: 0 };

function classified(text = excerpt, ctx = {}): FlowPrint<CboeTrade>[] {
  return classifyTrades(parseCboeTrades(text).trades, { ...PRICING, ...ctx });
}

const at = (prints: FlowPrint<CboeTrade>[], line: number) => prints.find((p) => p.trade.line === line)!;

describe("Cboe DataShop option trades: parsing", () => {
  it("reads every row of the real excerpt, including the one without NBBO, underlying quote or exchange quotes", () => {
    const { trades, rejected } = parseCboeTrades(excerpt);
    expect(rejected).toEqual([]);
    expect(trades).toHaveLength(259);
    const first = trades[0]!;
    expect(first).toMatchObject({
      line: 2,
      underlying: "VIX",
      isIndex: true,
      optionSymbol: "VIX160608C00012500",
      settlement: "am",
      sessionDate: "2016-06-01",
      sequenceNumber: 78677916,
      exchangeId: 5,
      size: 1,
      price: 2.4,
      bid: 2.15,
      ask: 2.6,
      underlyingPrice: 14.75,
    });
    // 13:57:58.175 in New York (EDT) is 17:57:58.175 UTC.
    expect(first.executedAt.toISOString()).toBe("2016-06-01T17:57:58.175Z");
    // Source line 778: the opening print, 0.0000 everywhere and no exchange quotes.
    expect(trades.find((t) => t.line === 24)).toMatchObject({ price: 1.1, bid: null, ask: null, underlyingPrice: null });
    expect(new Set(trades.map((t) => t.exchangeId))).toEqual(new Set([5]));
  });

  it("reports each malformed row with its line number and reason, and keeps the good ones", () => {
    const { trades, rejected } = parseCboeTrades(malformed);
    expect(trades.map((t) => t.line)).toEqual([2, 15]);
    expect(rejected).toEqual([
      { row: 3, reason: "expected 22 columns for 1 exchange quotes, found 20" },
      { row: 4, reason: "bad quote_datetime '2016-06-01 24:00:00.000'" },
      { row: 5, reason: "2016-05-30 is not a trading session" },
      { row: 6, reason: "option_type is not C or P: 'X'" },
      { row: 7, reason: "trade_size is not an integer in [1, 2147483647]: '0'" },
      { row: 8, reason: "trade_price is not a number ≥ 0.0001: 'abc'" },
      { row: 9, reason: "traded on 2016-06-01, after its expiration 2016-05-25" },
      { row: 10, reason: "duplicate of line 2 (same contract, time and sequence number)" },
      { row: 11, reason: "exchange quote 1 is not numeric: '5,269,n/a,2420,2.6000'" },
      { row: 12, reason: "bad underlying_symbol 'vix'" },
      { row: 13, reason: "bad expiration '2016-02-30'" },
      { row: 14, reason: "best_bid is not a number ≥ 0: '-0.0500'" },
    ]);
  });

  it("refuses a file that is not an option trades file", () => {
    expect(() => parseCboeTrades("a,b\n1,2\n")).toThrow(/not a Cboe DataShop option trades file: missing column\(s\) underlying_symbol/);
    expect(() => parseCboeTrades('"quoted",x\n"open\n')).toThrow(/not a Cboe DataShop option trades file/);
  });

  it("rejects a row with a stray quote without losing the rows after it", () => {
    const [header, good] = malformed.split("\n");
    const quoted = good!.replace("^VIX", '"^VIX').replace("78677916", "1");
    const { trades, rejected } = parseCboeTrades(`${header}\n${quoted}\n${good}\n`);
    expect(rejected).toEqual([{ row: 2, reason: `bad underlying_symbol '"^VIX'` }]);
    expect(trades.map((t) => t.line)).toEqual([3]);
  });

  it("counts lines as the file does, blank lines and Windows line ends included", () => {
    const [header, good] = malformed.split("\n");
    const { trades, rejected } = parseCboeTrades(`${header}\r\n\r\n${good}\r\n`);
    expect(rejected).toEqual([]);
    expect(trades.map((t) => t.line)).toEqual([3]);
  });
});

describe("Cboe DataShop option trades: classification", () => {
  it("classifies every print against its own NBBO", () => {
    const prints = classified();
    for (const p of prints) expect(p.side, `line ${p.trade.line}`).toBe(classifyFill(p.trade.price, p.trade.bid, p.trade.ask));
    const sides = (lines: number[]) => lines.map((l) => at(prints, l).side);
    // The reference vectors' prints (12.5C; 13C at 2.10, 2.15, 1.85; 13P at 0.03 over a zero bid).
    expect(sides([2, 3, 4, 5, 9])).toEqual(["ask", "bid", "ask", "mid", "ask"]);
    // 13C at 1.70 twice: below the mid of 1.55/1.90, above the mid of 1.55/1.80.
    expect(sides([7, 8])).toEqual(["bid", "ask"]);
    // Three 16P prints at 1.20 in the same millisecond: 1.15/1.25, 1.15/1.20, 1.15/1.25.
    expect(at(prints, 44).trade.executedAt).toEqual(at(prints, 46).trade.executedAt);
    expect(sides([44, 45, 46])).toEqual(["mid", "ask", "mid"]);
    // 0.01 against 0.00/0.05: a zero bid is a market, so the bid side; no NBBO at all: unknown.
    expect(sides([20, 21, 22, 24])).toEqual(["bid", "bid", "bid", "unknown"]);
    expect(prints.filter((p) => p.side === "unknown")).toHaveLength(1);
  });

  it("finds no sweep in a single-venue product, and would with a second venue", () => {
    const prints = classified();
    expect(prints.filter((p) => p.executionType === "sweep")).toEqual([]);
    // Source line 1865 printed on Cboe (5) in the same millisecond as 1864; put it on ISE (6).
    const lines = excerpt.split("\n");
    lines[213] = lines[213]!.replace(/^((?:[^,]*,){7})5,/, (_, head: string) => `${head}6,`);
    const moved = classified(lines.join("\n"));
    expect([at(moved, 213).executionType, at(moved, 214).executionType]).toEqual(["sweep", "sweep"]);
  });

  it("calls same-millisecond clusters splits, lone large prints blocks", () => {
    const prints = classified();
    const groups = new Map<string, FlowPrint<CboeTrade>[]>();
    for (const p of prints) {
      const key = `${p.trade.optionSymbol}|${p.trade.executedAt.getTime()}|${p.side}|${p.printClass}`;
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    const clusters = [...groups.values()].filter((g) => g.length > 1);
    // 29 same-millisecond groups of one contract in the excerpt (218 in the whole file); 22 of them share side and class.
    const sameMs = new Set(prints.map((p) => `${p.trade.optionSymbol}|${p.trade.executedAt.getTime()}`));
    expect(prints.length - sameMs.size).toBe(81 - 29);
    expect([clusters.length, clusters.flat().length]).toEqual([22, 64]);
    for (const g of clusters) for (const p of g) expect(p.executionType, `line ${p.trade.line}`).toBe("split");
    // A 7,000-lot fill inside the 26C condition-13 burst is part of a split, not a block.
    expect(at(prints, 167)).toMatchObject({ executionType: "split" });
    expect(at(prints, 167).trade.size).toBe(7000);
    // Lone prints: 4,920 lots at the bid (regular) and a 10,000-lot spread leg are blocks; a 1-lot is a split.
    expect(at(prints, 201)).toMatchObject({ executionType: "block", side: "bid", printClass: "regular", sentiment: "bearish" });
    expect(at(prints, 131)).toMatchObject({ executionType: "block", printClass: "complex" });
    expect(at(prints, 2)).toMatchObject({ executionType: "split" });
  });

  it("flags complex and canceled prints and keeps them out of sentiment and volume", () => {
    const prints = classified();
    // The 22,849-lot condition-106 print above the mid: ask side, but a complex print, so neutral.
    expect(at(prints, 214)).toMatchObject({ side: "ask", printClass: "complex", sentiment: "neutral", premium: 1_188_148 });
    expect(at(prints, 113)).toMatchObject({ printClass: "complex", sentiment: "neutral" });
    // The canceled 18P trade (condition 35, canceled 1) and its cancel message (condition 40, canceled 2).
    expect(at(prints, 143)).toMatchObject({ printClass: "canceled", sentiment: "neutral" });
    expect(at(prints, 146)).toMatchObject({ printClass: "canceled", sentiment: "neutral" });
    const canceled = at(prints, 143);
    const earlier = prints.filter(
      (p) => p.trade.optionSymbol === canceled.trade.optionSymbol && p.trade.executedAt < canceled.trade.executedAt,
    );
    expect(canceled.volume).toBe(Math.max(...earlier.map((p) => p.volume)));
    for (const p of prints.filter((x) => x.printClass === "regular" && x.side !== "mid" && x.side !== "unknown"))
      expect(p.sentiment).not.toBe("neutral");
  });

  it("keeps a running session volume per contract, in time order", () => {
    const prints = classified();
    const bySymbol = new Map<string, FlowPrint<CboeTrade>[]>();
    for (const p of prints) bySymbol.set(p.trade.optionSymbol, [...(bySymbol.get(p.trade.optionSymbol) ?? []), p]);
    expect(bySymbol.size).toBe(11);
    for (const [symbol, ps] of bySymbol) {
      const total = ps.filter((p) => p.printClass !== "canceled").reduce((s, p) => s + p.trade.size, 0);
      expect(Math.max(...ps.map((p) => p.volume)), symbol).toBe(total);
      const ordered = [...ps].sort((a, b) => a.trade.executedAt.getTime() - b.trade.executedAt.getTime() || a.volume - b.volume);
      for (let i = 1; i < ordered.length; i++) expect(ordered[i]!.volume).toBeGreaterThanOrEqual(ordered[i - 1]!.volume);
    }
    // The 12.5C traded once, 1 lot.
    expect(at(prints, 2).volume).toBe(1);
  });

  it("computes premium and signed moneyness against the index, a spot for every print, and no IV from spot for VIX (priced off futures)", () => {
    const prints = classified();
    expect(at(prints, 2)).toMatchObject({ premium: 240, underlyingPrice: 14.75, otmPct: -15.2542, isEtfOrIndex: true });
    // The two 09:30:02.025 prints have no underlying quote and none came before them: spot unknown, never a later print's.
    expect(at(prints, 24)).toMatchObject({ underlyingPrice: 0, otmPct: 0 });
    expect(at(prints, 134)).toMatchObject({ underlyingPrice: 0, otmPct: 0 });
    for (const p of prints)
      if (p.trade.underlyingPrice !== null) expect(p.underlyingPrice, `line ${p.trade.line}`).toBe(p.trade.underlyingPrice);
    // Neither the trade price nor the mid is solved against the index; without a stored quote, IV and delta are 0.
    expect(prints.every((p) => p.iv === 0 && p.delta === 0 && p.ivSource === "none")).toBe(true);
    for (const p of prints) for (const [field, value] of Object.entries(p)) expect(value, `line ${p.trade.line} ${field}`).not.toBeNull();
  });

  it("takes a spot at or before a print — among these trades, else the stored prints before them — else the stored quote of the session, else 0; never a later one", () => {
    const { trades } = parseCboeTrades(excerpt);
    const lines = [24, 11, 25, 2].map((l) => trades.find((t) => t.line === l)!);
    // Line 2 (13:57) has its own spot; 24 (09:30:02) none and no print before it; 11 and 25 after it.
    expect(sessionSpots(lines)).toEqual([0, 15.1, 15.225, 14.75]);
    expect(sessionSpots(lines, new Map([["VIX|2016-06-01", 15.3]]))).toEqual([15.3, 15.1, 15.225, 14.75]);
    expect(sessionSpots(lines, new Map([["VIX|2016-06-01", 15.3]]), new Map([["VIX|2016-06-01", 15.05]]))).toEqual([
      15.05, 15.1, 15.225, 14.75,
    ]);
    const [alone] = lines;
    expect(sessionSpots([alone!], new Map([["VIX|2016-06-01", 15.3]]))).toEqual([15.3]);
    expect(sessionSpots([alone!], new Map([["VIX|2016-06-02", 15.3]]))).toEqual([0]);
    const [p] = classifyTrades([alone!], PRICING);
    expect(p).toMatchObject({ underlyingPrice: 0, otmPct: 0, iv: 0, delta: 0, ivSource: "none" });
  });

  it("gives VIX prints the contract's stored IV and delta when there is one", () => {
    const quotes = new Map<string, StoredQuote>([
      ["VIX160720C00027000", { sessionDate: "2016-06-01", openInterest: null, iv: 0.9012, delta: 0.2101 }],
    ]);
    const prints = classified(excerpt, { quotes });
    const big = at(prints, 214);
    expect(big).toMatchObject({
      iv: 0.9012,
      delta: 0.2101,
      ivSource: "snapshot",
      openInterest: 0,
      openInterestSource: "none",
      opening: false,
    });
    const bySource = prints.reduce<Record<string, number>>((n, p) => ({ ...n, [p.ivSource]: (n[p.ivSource] ?? 0) + 1 }), {});
    expect(bySource).toEqual({ snapshot: 66, none: 259 - 66 });
  });

  it("solves IV and delta from the trade price where spot prices the option, else the mid, else the stored IV, and prefers the vendor's Calcs columns", () => {
    // Made-up SPY prints in the same layout (not from the sample): 5-day 590 call, spot 592.00/592.04, NBBO 4.05/4.15.
    const row = (seq: number, price: string, nbbo = "4.0500,4.1500") =>
      `SPY,2026-11-20 10:30:00.000,${seq},SPY,2026-11-25,590.000,C,6,40,${price},0,0,${nbbo},592.0000,592.0400,0`;
    const [p] = classified(`${HEADER}\n${row(1, "4.1000")}\n`);
    expect(p).toMatchObject({ side: "mid", isEtfOrIndex: false, otmPct: -0.3412, opening: false, openInterest: 0, ivSource: "trade" });
    expect(p!.trade.settlement).toBe("pm");
    const T = yearsToExpiry("2026-11-25", "pm", p!.trade.executedAt);
    const terms = { S: 592.02, K: 590, T, r: PRICING.rate, q: 0, side: "call" as const };
    const repriced = bsm({ ...terms, sigma: p!.iv });
    expect(repriced.price).toBeCloseTo(4.1, 9);
    expect(p!.delta).toBeCloseTo(repriced.delta, 12);
    expect(p!.delta).toBeGreaterThan(0.5);
    expect(classified(`${HEADER}\n${row(1, "4.1000")}\n`, { etfOrIndex: new Set(["SPY"]) })[0]!.isEtfOrIndex).toBe(true);

    // 1.90 is below the call's intrinsic value (2.02): no IV, so the mid's (4.10, the same as above).
    const [below] = classified(`${HEADER}\n${row(2, "1.9000")}\n`);
    expect(below).toMatchObject({ side: "bid", ivSource: "mid", iv: p!.iv, delta: p!.delta });
    expect(impliedVolatility({ price: 1.9, ...terms })).toBeNull();
    // No market either: the contract's stored IV, delta re-priced at the print's spot; without one, 0 and 0.
    const noMarket = `${HEADER}\n${row(3, "1.9000", "0.0000,0.0000")}\n`;
    const quotes = new Map<string, StoredQuote>([
      ["SPY261125C00590000", { sessionDate: "2026-11-19", openInterest: 12, iv: 0.25, delta: 0.9 }],
    ]);
    const [stored] = classified(noMarket, { quotes });
    expect(stored).toMatchObject({ side: "unknown", ivSource: "snapshot", iv: 0.25, delta: bsm({ ...terms, sigma: 0.25 }).delta });
    expect(stored).toMatchObject({ openInterest: 12, openInterestSource: "earlier", opening: true });
    expect(classified(noMarket)[0]).toMatchObject({ ivSource: "none", iv: 0, delta: 0 });

    const calcsHeader = HEADER.replace("best_ask,", "best_ask,trade_iv,trade_delta,");
    const withCalcs =
      "^VIX,2016-06-01 13:57:58.175,78677916,VIX,2016-06-08,12.500,C,5,1,2.4000,0,0,2.1500,2.6000,0.9871,0.8123,14.7500,14.7500,0";
    expect(classified(`${calcsHeader}\n${withCalcs}\n`)[0]).toMatchObject({ iv: 0.9871, delta: 0.8123, ivSource: "trade" });
  });

  it("flags opening prints against the open interest of the session, else the latest earlier one, never a later one", () => {
    const quote = (sessionDate: string, openInterest: number): Map<string, StoredQuote> =>
      new Map([["VIX160720C00027000", { sessionDate, openInterest, iv: null, delta: null }]]);
    const prints = classified(excerpt, { quotes: quote("2016-06-01", 20_000) });
    expect(at(prints, 214)).toMatchObject({ openInterest: 20_000, openInterestSource: "session", opening: true });
    expect(at(prints, 213)).toMatchObject({ openInterest: 20_000, openInterestSource: "session", opening: false });
    // Unknown: 0 and never opening (a known 0 would make every print opening).
    expect(at(prints, 2)).toMatchObject({ openInterest: 0, openInterestSource: "none", opening: false });
    expect(at(classified(excerpt, { quotes: quote("2016-05-31", 20_000) }), 214)).toMatchObject({
      openInterest: 20_000,
      openInterestSource: "earlier",
      opening: true,
    });
    // A later session's figure already counts the print itself.
    expect(at(classified(excerpt, { quotes: quote("2016-06-02", 42_849) }), 214)).toMatchObject({
      openInterest: 0,
      openInterestSource: "none",
      opening: false,
    });
  });
});

describe("Cboe DataShop option trades: loading", () => {
  it("upserts idempotently: a second load of the same file changes nothing", async () => {
    const backend = await ingestDatabase();
    try {
      // Open interest of the session for one contract, as a quote-table load of 2016-06-01 would leave it.
      // Its IV and delta too (Cboe's, as a quote table of the day carries them): the VIX prints' only IV source.
      await backend.typedQuery(
        `insert into option_quotes (option_symbol, underlying, root, expiration, strike, side, settlement, open_interest, iv, delta, as_of)
         values ('VIX160720C00027000', 'VIX', 'VIX', '2016-07-20', 27, 'call', 'am', 20000, 0.9012, 0.2101, '2016-06-01T20:15:00Z')`,
      );
      const load = async () => {
        const file = parseCboeTrades(excerpt);
        const prints = classifyTrades(file.trades, await flowContext(backend.typedQuery, file.trades, PRICING));
        return backend.typedTransaction((query, copy) => writeFlowPrints(query, copy, prints));
      };
      const snapshot = async () => (await backend.typedQuery("select * from flow_prints order by id")).rows;
      expect(await load()).toBe(259);
      const first = await snapshot();
      expect(first).toHaveLength(259);
      expect(await load()).toBe(259);
      expect(await snapshot()).toEqual(first);

      const [big] = (await backend.typedQuery("select * from flow_prints where size = 22849")).rows;
      expect(big).toMatchObject({
        ticker: "VIX",
        option_symbol: "VIX160720C00027000",
        side: "ask",
        sentiment: "neutral",
        execution_type: "split",
        print_class: "complex",
        premium: 1188148,
        open_interest: 20000,
        open_interest_source: "session",
        opening: true,
        iv: 0.9012,
        delta: 0.2101,
        iv_source: "snapshot",
        exchange_id: 5,
        // a bigint: a number from PGlite, a string from PostgreSQL's driver
        sequence_number: expect.toSatisfy((n: unknown) => Number(n) === 73689659),
        trade_condition_id: 106,
        is_etf_or_index: true,
      });
      expect((big!.executed_at as Date).toISOString()).toBe("2016-06-01T17:32:13.375Z");
      // The opening print had no quotes at all and nothing before it: spot unknown (0), nothing unknown left null.
      const [opening] = (await backend.typedQuery("select * from flow_prints where sequence_number = 223327")).rows;
      expect(opening).toMatchObject({ underlying_price: 0, otm_pct: 0, open_interest: 0, opening: false, iv: 0, delta: 0 });
      expect(opening).toMatchObject({ open_interest_source: "none", iv_source: "none" });
      const sources = (
        await backend.typedQuery("select iv_source, open_interest_source, count(*)::int as n from flow_prints group by 1, 2 order by 1, 2")
      ).rows;
      // The 27C's 66 prints take the stored quote; the other contracts have none.
      expect(sources).toEqual([
        { iv_source: "none", open_interest_source: "none", n: 259 - 66 },
        { iv_source: "snapshot", open_interest_source: "session", n: 66 },
      ]);
      const [{ n }] = (await backend.typedQuery("select count(*)::int as n from market_state")).rows as [{ n: number }];
      expect(n).toBe(0);
    } finally {
      await backend.close();
    }
  });
});
