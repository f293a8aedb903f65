import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import { yearsToExpiry } from "../../src/domain/market-clock";
import type { OccContract } from "../../src/domain/occ";
import type { QuoteEvent } from "../../ingest/events";
import { readPositions } from "../../ingest/db/positions";
import { writeTrades } from "../../ingest/flow/write-trades";
import { underlyingGroups } from "../../ingest/quotes/apply-quotes";
import { loadQuoteMarket } from "../../ingest/quotes/load-quote-market";
import { writeQuotes } from "../../ingest/quotes/write-quotes";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";
import { OpraStream } from "./opra-stream";

const FEED = "databento-opra";
/** AAPL's market in the chain below: spot, dividend yield, volatility; the stored rate. */
const S = 101.37;
const Q = 0.005;
const R = 0.043;
const SIGMA = 0.25;
/** Monday 2026-03-02, 15:00 and 15:01 ET: two minute samples. */
const MINUTE_1 = "2026-03-02T20:00:00Z";
const MINUTE_2 = "2026-03-02T20:01:00Z";
const EXPIRATIONS = ["2026-03-04", "2026-03-13", "2026-04-17"];
const STRIKES = [90, 95, 100, 105, 110];

const contract = (expiration: string, strike: number, side: "call" | "put"): OccContract => ({ root: "AAPL", expiration, strike, side });

let db: SqlBackend;
beforeAll(async () => {
  db = await ingestDatabase();
}, 60_000);
beforeEach(async () => {
  await db.typedQuery(
    "truncate option_quotes, equity_quotes, underlyings, market_state, market_versions, feed_positions, flow_prints, iv_daily cascade",
  );
  await db.typedQuery(
    `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage, dividend_yield) values ('AAPL', 'Apple', 'stock', 'x', true, true, $1)`,
    [Q],
  );
  await db.typedQuery(`insert into equity_quotes (symbol, price, as_of) values ('AAPL', 96, '2026-02-27T21:00:00Z')`);
  await db.typedQuery(
    `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 7, '2026-02-27T21:00:00Z', '2026-02-27', $1, 'seed')`,
    [R],
  );
});
afterAll(async () => db.close());

/** The chain's samples at `at`: every contract quoted a cent either side of its Black-Scholes-Merton value at `sigma`. */
function chainAt(stream: OpraStream, at: string, sigma = SIGMA, spot = S): QuoteEvent[] {
  const events: QuoteEvent[] = [];
  for (const expiration of EXPIRATIONS) {
    for (const strike of STRIKES) {
      for (const side of ["call", "put"] as const) {
        const c = contract(expiration, strike, side);
        stream.define(c, "AAPL", "2026-03-02T11:00:00Z");
        const T = yearsToExpiry(expiration, "pm", new Date(at));
        const theo = bsm({ S: spot, K: strike, T, r: R, q: Q, sigma, side }).price;
        events.push(stream.quote(c, at, Math.max(theo - 0.01, 0), theo + 0.01));
      }
    }
  }
  return events;
}

/** AAPL's stored 30-day IV of the session 2026-03-02 (decimal), or undefined. */
async function sessionIv(): Promise<number | undefined> {
  const { rows } = await db.typedQuery(`select iv from iv_daily where symbol = 'AAPL' and date = '2026-03-02'`);
  return rows[0] === undefined ? undefined : Number(rows[0].iv);
}

async function stored(symbol: string) {
  const { rows } = await db.typedQuery(`select * from option_quotes where option_symbol = $1`, [symbol]);
  return rows[0]!;
}

describe("writing minute quote samples", () => {
  it("implies the spot from the chain, solves IV and Greeks at it and the sample's time, and moves the session on", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    expect(await writeQuotes(db, FEED, chainAt(stream, MINUTE_1), market)).toEqual({ written: 30, skipped: 0 });

    const { rows: spot } = await db.typedQuery(`select price, as_of from equity_quotes where symbol = 'AAPL'`);
    expect(Number(spot[0]!.price)).toBeCloseTo(S, 2);
    expect(new Date(spot[0]!.as_of as Date).toISOString()).toBe("2026-03-02T20:00:00.000Z");

    const call = await stored("AAPL260313C00100000");
    const T = yearsToExpiry("2026-03-13", "pm", new Date(MINUTE_1));
    const expected = bsm({ S, K: 100, T, r: R, q: Q, sigma: SIGMA, side: "call" });
    expect(Number(call.iv)).toBeCloseTo(SIGMA, 3);
    expect(Number(call.delta)).toBeCloseTo(expected.delta, 3);
    expect(Number(call.gamma)).toBeCloseTo(expected.gamma, 3);
    expect(Number(call.underlying_price)).toBeCloseTo(S, 2);
    expect(call).toMatchObject({ underlying: "AAPL", root: "AAPL", side: "call", settlement: "pm", volume: 0 });
    expect(new Date(call.as_of as Date).toISOString()).toBe("2026-03-02T20:00:00.000Z");

    const { rows: state } = await db.typedQuery(`select version, as_of, session_date::text as session_date from market_state`);
    expect(state[0]).toMatchObject({ session_date: "2026-03-02" });
    expect(Number(state[0]!.version)).toBe(8);
    expect(new Date(state[0]!.as_of as Date).toISOString()).toBe("2026-03-02T20:00:00.000Z");
    expect(await readPositions(db.typedQuery, FEED)).toEqual(new Map([["cbbo-1m", BigInt(Date.parse(MINUTE_1)) * 1_000_000n]]));
  });

  it("keeps the session's open, high and low of the spots it implies, and starts the next session's afresh", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    const range = async () =>
      (await db.typedQuery(`select session_date::text as session, open, high, low, price from equity_quotes where symbol = 'AAPL'`))
        .rows[0]!;
    await writeQuotes(db, FEED, chainAt(stream, MINUTE_1, SIGMA, 100), market);
    await writeQuotes(db, FEED, [...chainAt(stream, MINUTE_2, SIGMA, 103), ...chainAt(stream, "2026-03-02T20:02:00Z", SIGMA, 98)], market);
    await writeQuotes(db, FEED, chainAt(stream, "2026-03-02T20:03:00Z", SIGMA, 101), market);
    const day = await range();
    expect(day.session).toBe("2026-03-02");
    for (const [field, value] of [
      ["open", 100],
      ["high", 103],
      ["low", 98],
      ["price", 101],
    ] as const)
      expect(Number(day[field]), field).toBeCloseTo(value, 2);
    await writeQuotes(db, FEED, chainAt(stream, "2026-03-03T15:00:00Z", SIGMA, 99), market);
    const next = await range();
    expect(next.session).toBe("2026-03-03");
    for (const field of ["open", "high", "low", "price"]) expect(Number(next[field]), field).toBeCloseTo(99, 2);
  });

  it("updates only the contracts a minute's samples name, the spot still implied from the whole chain", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    await writeQuotes(db, FEED, chainAt(stream, MINUTE_1), market);
    const put = contract("2026-03-13", 95, "put");
    await writeQuotes(db, FEED, [stream.quote(put, MINUTE_2, 0.3, 0.34)], market);

    expect(Number((await stored("AAPL260313P00095000")).bid)).toBe(0.3);
    expect(new Date((await stored("AAPL260313P00095000")).as_of as Date).toISOString()).toBe("2026-03-02T20:01:00.000Z");
    expect(new Date((await stored("AAPL260313C00100000")).as_of as Date).toISOString()).toBe("2026-03-02T20:00:00.000Z");
    const { rows } = await db.typedQuery(`select price from equity_quotes where symbol = 'AAPL'`);
    expect(Number(rows[0]!.price)).toBeCloseTo(S, 2);
    // Within the session only AAPL's scope and the rankings' (AAPL's IV moved) move, once per batch; never the load's version.
    const { rows: versions } = await db.typedQuery(`select scope, version::int, as_of from market_versions order by scope`);
    expect(versions.map((v) => [v.scope, v.version, new Date(v.as_of as Date).toISOString()])).toEqual([
      ["*:iv", 2, "2026-03-02T20:01:00.000Z"],
      ["AAPL", 2, "2026-03-02T20:01:00.000Z"],
    ]);
    const { rows: state } = await db.typedQuery(`select version::int, scope_version::int from market_state`);
    expect(state[0]).toEqual({ version: 8, scope_version: 2 });
  });

  it("starts from the stored book after a restart: a lone sample still gets the chain's spot", async () => {
    await writeQuotes(db, FEED, chainAt(new OpraStream(), MINUTE_1), await loadQuoteMarket(db.typedQuery));
    const restarted = await loadQuoteMarket(db.typedQuery);
    const stream = new OpraStream();
    await writeQuotes(db, FEED, [stream.quote(contract("2026-04-17", 110, "call"), MINUTE_2, 1.1, 1.2)], restarted);
    expect(Number((await stored("AAPL260417C00110000")).underlying_price)).toBeCloseTo(S, 2);
  });

  it("keeps the session's 30-day IV at the newest minute, from the whole chain, and moves the rankings' scope with it", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    await writeQuotes(db, FEED, chainAt(stream, MINUTE_1), market);
    // A flat smile: the 11- and 46-day expiries' ATM IVs, interpolated in variance to 30 days, are its level.
    expect(await sessionIv()).toBeCloseTo(SIGMA, 4);
    await writeQuotes(db, FEED, chainAt(stream, MINUTE_2, 0.32), market);
    expect(await sessionIv()).toBeCloseTo(0.32, 4);
    const { rows: versions } = await db.typedQuery(`select scope from market_versions order by scope`);
    expect(versions.map((v) => v.scope)).toEqual(["*:iv", "AAPL"]);

    // Restarted, a lone sample far from the money: the IV is taken again from the whole chain, read back
    // from the store (from the lone sample alone there would be none, and the row would keep 0.5).
    await db.typedQuery(`update iv_daily set iv = 0.5`);
    const restarted = await loadQuoteMarket(db.typedQuery);
    const minute3 = "2026-03-02T20:02:00Z";
    const far = contract("2026-04-17", 110, "call");
    const T = yearsToExpiry("2026-04-17", "pm", new Date(minute3));
    const theo = bsm({ S, K: 110, T, r: R, q: Q, sigma: 0.32, side: "call" }).price;
    await writeQuotes(db, FEED, [stream.quote(far, minute3, theo - 0.01, theo + 0.01)], restarted);
    expect(await sessionIv()).toBeCloseTo(0.32, 3);
  });

  it("never replaces a newer quote with an older sample, and skips samples at or before the stored position", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    const c = contract("2026-03-13", 100, "call");
    await writeQuotes(db, FEED, [stream.quote(c, MINUTE_2, 2.5, 2.6)], market);
    // Replayed after a restart: at the position, skipped.
    expect(await writeQuotes(db, FEED, [stream.quote(c, MINUTE_2, 9, 9.1)], market)).toEqual({ written: 0, skipped: 1 });
    // Another feed's older sample of the same contract: written to nothing.
    await writeQuotes(db, "other-feed", [stream.quote(c, MINUTE_1, 1, 1.1)], market);
    expect(Number((await stored("AAPL260313C00100000")).bid)).toBe(2.5);
  });

  it("keeps a one-sided or crossed quote without IV, and adds a contract it has not seen", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    const oneSided = contract("2026-03-13", 120, "call");
    const crossed = contract("2026-03-13", 80, "put");
    await writeQuotes(db, FEED, [stream.quote(oneSided, MINUTE_1, null, 0.05), stream.quote(crossed, MINUTE_1, 0.2, 0.1)], market);
    expect(await stored("AAPL260313C00120000")).toMatchObject({ bid: null, ask: 0.05, iv: null, delta: null, underlying_price: 96 });
    expect(await stored("AAPL260313P00080000")).toMatchObject({ bid: 0.2, ask: 0.1, iv: null });
  });

  it("starts the session's volume again at 0 on its first sample, and the session's trades carry it on", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    const c = contract("2026-03-13", 100, "call");
    await writeQuotes(db, FEED, [stream.quote(c, "2026-02-27T20:59:00Z", 2, 2.1)], market);
    await db.typedQuery(`update option_quotes set volume = 812, last = 2.05, last_trade_at = '2026-02-27T20:58:00Z'`);
    await writeQuotes(db, FEED, [stream.quote(c, MINUTE_1, 2.4, 2.5)], market);
    expect(await stored("AAPL260313C00100000")).toMatchObject({ volume: 0, last: 2.05 });

    await writeTrades(
      db,
      FEED,
      [stream.trade(c, "2026-03-02T20:00:10Z", 2.5, 7, 2.4, 2.5), stream.trade(c, "2026-03-02T20:00:20Z", 2.45, 3, 2.4, 2.5)],
      {
        rate: R,
        dividendYield: Q,
      },
    );
    const quote = await stored("AAPL260313C00100000");
    expect(quote).toMatchObject({ volume: 10, last: 2.45 });
    expect(new Date(quote.last_trade_at as Date).toISOString()).toBe("2026-03-02T20:00:20.000Z");
    // The session's next sample keeps what its trades counted.
    await writeQuotes(db, FEED, [stream.quote(c, MINUTE_2, 2.4, 2.5)], market);
    expect(await stored("AAPL260313C00100000")).toMatchObject({ volume: 10, last: 2.45 });
  });

  it("takes the previous session's closing mark as the premium change's reference on a session's first sample", async () => {
    const stream = new OpraStream();
    const market = await loadQuoteMarket(db.typedQuery);
    const c = contract("2026-03-13", 100, "call");
    await writeQuotes(db, FEED, [stream.quote(c, "2026-02-27T20:58:00Z", 1.9, 2.0)], market);
    await writeQuotes(db, FEED, [stream.quote(c, "2026-02-27T20:59:00Z", 2, 2.1)], market);
    await db.typedQuery(`update option_quotes set previous_mark = 1.5`);
    await writeQuotes(db, FEED, [stream.quote(c, MINUTE_1, 2.4, 2.5)], market);
    expect(await stored("AAPL260313C00100000")).toMatchObject({ previous_mark: 2.05 });
    // Later samples of the session keep it; a one-sided closing quote falls back to the last trade.
    await writeQuotes(db, FEED, [stream.quote(c, MINUTE_2, 2.6, 2.7)], market);
    expect(await stored("AAPL260313C00100000")).toMatchObject({ previous_mark: 2.05 });
    await db.typedQuery(`update option_quotes set bid = null, last = 2.61`);
    await writeQuotes(db, FEED, [stream.quote(c, "2026-03-03T15:00:00Z", 2.6, 2.7)], market);
    expect(await stored("AAPL260313C00100000")).toMatchObject({ previous_mark: 2.61 });
  });
});

describe("a minute's transactions", () => {
  it("group whole underlyings in symbol order, closing a group once it holds the chunk's rows", () => {
    const row = (underlying: string, i: number) => ({ optionSymbol: `${underlying}${i}`, underlying });
    const rows = [row("SPY", 1), row("AAPL", 1), row("SPY", 2), row("MSFT", 1), row("AAPL", 2), row("AAPL", 3), row("QQQ", 1)];
    const groups = underlyingGroups(rows, [], 3).map((g) => g.map((r) => r.optionSymbol));
    // SPY is not split across two transactions although the second group is past 3 rows.
    expect(groups).toEqual([
      ["AAPL1", "AAPL2", "AAPL3"],
      ["MSFT1", "QQQ1", "SPY1", "SPY2"],
    ]);
  });

  it("begin a group at each screener partition's bound, whether or not the bound is one of the underlyings", () => {
    const row = (underlying: string, i: number) => ({ optionSymbol: `${underlying}${i}`, underlying });
    const rows = [
      row("SPY", 1),
      row("AAPL", 1),
      row("SPY", 2),
      row("MSFT", 1),
      row("AAPL", 2),
      row("AAPL", 3),
      row("QQQ", 1),
      row("TSLA", 1),
    ];
    const groups = (cuts: string[], chunk = 100) => underlyingGroups(rows, cuts, chunk).map((g) => g.map((r) => r.optionSymbol));
    // Partitions [, MSFT) [MSFT, R) [R, T) [T, ): four groups, though all would fit one.
    expect(groups(["MSFT", "R", "T"])).toEqual([["AAPL1", "AAPL2", "AAPL3"], ["MSFT1", "QQQ1"], ["SPY1", "SPY2"], ["TSLA1"]]);
    // Bounds with no sampled underlying between them (or before the first) open no empty group.
    expect(groups(["A", "B", "C", "S"])).toEqual([
      ["AAPL1", "AAPL2", "AAPL3"],
      ["MSFT1", "QQQ1"],
      ["SPY1", "SPY2", "TSLA1"],
    ]);
    // The chunk still closes a group within a partition.
    expect(groups(["S"], 2)).toEqual([["AAPL1", "AAPL2", "AAPL3"], ["MSFT1", "QQQ1"], ["SPY1", "SPY2"], ["TSLA1"]]);
  });
});
