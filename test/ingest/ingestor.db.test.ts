import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DbnRecord } from "../../ingest/dbn";
import type { FeedPosition, MarketEvent } from "../../ingest/events";
import { isDataError } from "../../ingest/pipeline/data-errors";
import type { IngestDatabase } from "../../ingest/db/database";
import { Ingestor, type IngestorOptions } from "../../ingest/pipeline/ingestor";
import { Lane } from "../../ingest/pipeline/lane";
import { readPositions } from "../../ingest/db/positions";
import { consumeFeed } from "../../ingest/sources/opra/replay";
import { rollSession } from "../../ingest/session/roll-session";
import type { OccContract } from "../../src/domain/occ";
import { DatabaseUnavailableError, type SqlBackend } from "../../ingest/db/sql-backend";
import { bsm } from "../../src/analytics/black-scholes";
import { yearsToExpiry } from "../../src/domain/market-clock";
import { ingestDatabase } from "../support/ingest-database";
import { feedOf, nanos, OpraStream } from "./opra-stream";

const FEED = "databento-opra";
const contract = (strike: number, side: "call" | "put"): OccContract => ({ root: "AAPL", expiration: "2026-03-20", strike, side });

let db: SqlBackend;
beforeAll(async () => {
  db = await ingestDatabase();
}, 60_000);
beforeEach(async () => {
  await db.typedQuery(
    "truncate option_quotes, equity_quotes, underlyings, market_state, feed_positions, flow_prints, open_interest_staged cascade",
  );
  await db.typedQuery(
    `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2026-03-02T21:00:00Z', '2026-03-02', 0.04, 'seed')`,
  );
  // Rolled at its close, as usual: the Tuesday's events wait for no roll (session-barrier.db.test.ts has the other case).
  await rollSession(db, "2026-03-02");
});
afterAll(async () => db.close());

/**
 * Tuesday 2026-03-03 as the feed gives it, in receive-time order: definitions at 06:00 ET, open
 * interest at 06:30, then from the open each minute's samples of the changed contracts and trades
 * between them: 4 contracts, 3 minutes, 12 trades.
 */
function session(): MarketEvent[] {
  const stream = new OpraStream();
  const strikes = [contract(100, "call"), contract(100, "put"), contract(105, "call"), contract(105, "put")];
  const events: MarketEvent[] = strikes.map((c) => stream.define(c, "AAPL", "2026-03-03T11:00:00Z"));
  events.push(...strikes.map((c, i) => stream.openInterest(c, "2026-03-03T11:30:00Z", 100 * (i + 1))));
  for (let minute = 0; minute < 3; minute++) {
    const at = (s: number) => new Date(Date.parse("2026-03-03T14:31:00Z") + minute * 60_000 + s * 1000);
    for (let i = 0; i < 4; i++) events.push(stream.trade(strikes[i % 4]!, at(10 + i * 10), 3 + minute * 0.1, 1 + i, 2.9, 3.4));
    // The minute's samples: calls and puts priced so that parity puts AAPL at 102.
    const spread = (mid: number) => [mid - 0.05, mid + 0.05] as const;
    events.push(stream.quote(strikes[0]!, at(60), ...spread(3.2 + minute * 0.1)));
    events.push(stream.quote(strikes[1]!, at(60), ...spread(1.2 + minute * 0.1)));
    events.push(stream.quote(strikes[2]!, at(60), ...spread(1.0)));
    events.push(stream.quote(strikes[3]!, at(60), ...spread(4.0)));
  }
  return events;
}

/** Runs an ingestor over the events; `stopped`: it is stopped after them rather than reaching the feed's end. */
async function run(events: MarketEvent[], { stopped = false } = {}): Promise<Ingestor> {
  const ingestor = await Ingestor.start(db, { feed: FEED, log: () => undefined });
  for (const e of events) await ingestor.accept(e);
  await ingestor.drain({ endOfFeed: !stopped });
  return ingestor;
}

/**
 * An ingestor that records the size of each trade batch it writes, with one contract listed;
 * `trade(i)` is a trade of it `i` seconds after 09:31 ET, each at a receive time of its own.
 */
async function tradeLane(options: Omit<IngestorOptions, "feed" | "log">) {
  const stream = new OpraStream();
  const c = contract(100, "call");
  const batches: number[] = [];
  const ingestor = await Ingestor.start(db, {
    feed: FEED,
    log: (f) => (f.event === "ingest_written" && f.lane === "trades" ? batches.push(Number(f.events)) : undefined),
    ...options,
  });
  await ingestor.accept(stream.define(c, "AAPL", "2026-03-03T11:00:00Z"));
  const from = Date.parse("2026-03-03T14:31:00Z");
  return { ingestor, batches, trade: (i: number) => stream.trade(c, new Date(from + i * 1000), 1.05, 1, 1, 1.1) };
}

const table = async () => ({
  prints: (await db.typedQuery(`select option_symbol, executed_at, sequence_number, size, volume from flow_prints order by 2, 1, 3`)).rows,
  quotes: (await db.typedQuery(`select option_symbol, bid, ask, volume, open_interest, as_of from option_quotes order by 1`)).rows,
});

describe("the ingestor", () => {
  it("writes a session's definitions, open interest, trades and minute quotes through their lanes", async () => {
    const ingestor = await run(session());
    expect(ingestor.counts).toMatchObject({ accepted: 32, skipped: 0 });
    const { prints, quotes } = await table();
    expect(prints).toHaveLength(12);
    expect(quotes.map((q) => q.open_interest)).toEqual([100, 300, 200, 400]);
    // Each contract traded 3 times (sizes 1-4 in the order listed; symbols sort calls first): the quote carries the session's volume.
    expect(quotes.map((q) => q.volume)).toEqual([3, 9, 6, 12]);
    expect(quotes.map((q) => new Date(q.as_of as Date).toISOString())).toEqual(Array(4).fill("2026-03-03T14:34:00.000Z"));
    const { rows } = await db.typedQuery(`select price from equity_quotes where symbol = 'AAPL'`);
    // Parity at 100: F = 100 + e^{rT}(3.4 − 1.4) ≈ 102; the two strikes' forwards agree within cents.
    expect(Number(rows[0]!.price)).toBeGreaterThan(101.5);
    expect(Number(rows[0]!.price)).toBeLessThan(102.5);
    const positions = await readPositions(db.typedQuery, FEED);
    expect([...positions.keys()].sort()).toEqual(["cbbo-1m", "definition", "statistics", "tcbbo"]);
    expect(positions.get("cbbo-1m")).toBe(nanos("2026-03-03T14:34:00Z"));
  });

  it("restarted after any prefix and fed the whole stream again, stores exactly what one pass stores", async () => {
    const events = session();
    await run(events);
    const once = await table();
    for (const cut of [5, 13, 21, 29]) {
      await db.typedQuery("truncate option_quotes, equity_quotes, underlyings, feed_positions, flow_prints, open_interest_staged cascade");
      await db.typedQuery(`update market_state set open_interest_date = null`);
      await run(events.slice(0, cut), { stopped: true });
      // The feed replays from before the stored positions: what they cover is skipped.
      const restarted = await run(events);
      expect(restarted.counts.skipped).toBeGreaterThan(0);
      expect(await table()).toEqual(once);
    }
  });

  it("switches in the staged open interest once the statistics have gone quiet for 30 s of feed time", async () => {
    const stream = new OpraStream();
    const c = contract(100, "call");
    const ingestor = await Ingestor.start(db, { feed: FEED, log: () => undefined, settleMs: 20 });
    await ingestor.accept(stream.define(c, "AAPL", "2026-03-03T11:00:00Z"));
    await ingestor.accept(stream.openInterest(c, "2026-03-03T11:30:00Z", 4242));
    ingestor.tick(nanos("2026-03-03T11:30:10Z"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const oi = async () => (await db.typedQuery(`select open_interest from option_quotes`)).rows[0]!.open_interest;
    expect(await oi()).toBeNull();
    ingestor.tick(nanos("2026-03-03T11:30:31Z"));
    await expect.poll(oi, { timeout: 5_000 }).toBe(4242);
    await ingestor.drain({ endOfFeed: false });
  });

  it("holds the reader back by lane: a full queue of quotes does not stop the trades behind them, a full queue of trades does", async () => {
    const stream = new OpraStream();
    const strikes = [100, 105, 110].flatMap((k) => [contract(k, "call"), contract(k, "put")]);
    const ingestor = await Ingestor.start(db, {
      feed: FEED,
      log: () => undefined,
      // Nothing is complete (one receive time, the feed never quiet): every event stays queued.
      settleMs: 60_000,
      maxQueued: { trades: 3, quotes: 6, contracts: 3 },
    });
    const at = "2026-03-03T14:31:00Z";
    const quotes = strikes.map((c) => ingestor.accept(stream.quote(c, at, 1, 1.1)));
    expect(quotes.slice(0, 5)).toEqual(Array(5).fill(undefined));
    expect(quotes[5]).toBeInstanceOf(Promise);
    const trades = [0, 1, 2].map((i) => ingestor.accept(stream.trade(strikes[i]!, at, 1.05, 1, 1, 1.1)));
    expect(trades.slice(0, 2)).toEqual([undefined, undefined]);
    expect(trades[2]).toBeInstanceOf(Promise);
    let released = false;
    void trades[2]!.then(() => (released = true));
    // The feed moves on: the queued receive time is complete, written, and the reader goes on.
    ingestor.tick(nanos("2026-03-03T14:31:01Z"));
    await expect.poll(() => released, { timeout: 10_000 }).toBe(true);
    await ingestor.drain({ endOfFeed: true });
  });

  it("paces the trades: a trickle is written a few times a second in batches, and the end still writes the rest at once", async () => {
    const { ingestor, batches, trade } = await tradeLane({ tradeIntervalMs: 400 });
    // 40 trades 20 ms apart on the wall, as at real time: each the next receive time, so each completes the one before.
    for (let i = 0; i < 40; i++) {
      await ingestor.accept(trade(i));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Then ten at once and the feed's end: what the pace has not written yet goes at once.
    for (let i = 40; i < 50; i++) await ingestor.accept(trade(i));
    const beforeEnd = batches.length;
    await ingestor.drain({ endOfFeed: true });
    expect(batches.reduce((a, b) => a + b, 0)).toBe(50);
    // 0.8 s of trades (more on a loaded machine) at one write per 0.4 s: the first trade alone, a few
    // batches behind it, then the rest at the end — batches, never a write per trade.
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(batches.length).toBeLessThanOrEqual(8);
    // The end: at most the paced write the burst may have started (its 0.4 s can run out on any of
    // the ten), then one write of everything left.
    expect(batches.length - beforeEnd).toBeGreaterThanOrEqual(1);
    expect(batches.length - beforeEnd).toBeLessThanOrEqual(2);
    expect((await table()).prints).toHaveLength(50);
  });

  it("writes a backlog of trades in batches of at most maxTradeBatch, each of whole receive times", async () => {
    // A write in flight and nothing settled: the trades behind the first queue up as a backlog.
    const { ingestor, batches, trade } = await tradeLane({ settleMs: 60_000, tradeIntervalMs: 0, maxTradeBatch: 10 });
    for (let i = 0; i < 25; i++) await ingestor.accept(trade(i));
    ingestor.tick(nanos("2026-03-03T14:40:00Z"));
    await ingestor.drain({ endOfFeed: true });
    // The first trade may go alone (the second completes its receive time); the backlog behind it is cut at 10.
    expect(batches.reduce((a, b) => a + b, 0)).toBe(25);
    expect(Math.max(...batches)).toBe(10);
    expect(batches.filter((b) => b === 10)).toHaveLength(2);
    expect((await table()).prints).toHaveLength(25);
  });

  it("writes a receive time split by a quiet spell whole: the late part is not taken for written", async () => {
    const events = session();
    // The last minute's four samples share one receive time; the feed stalls after two of them.
    const samples = events.slice(-4);
    const ingestor = await Ingestor.start(db, { feed: FEED, log: () => undefined, settleMs: 20 });
    for (const e of [...events.slice(0, -4), ...samples.slice(0, 2)]) await ingestor.accept(e);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const e of samples.slice(2)) await ingestor.accept(e);
    await ingestor.drain({ endOfFeed: true });
    const { quotes } = await table();
    expect(quotes.map((q) => new Date(q.as_of as Date).toISOString())).toEqual(Array(4).fill("2026-03-03T14:34:00.000Z"));
    expect((await readPositions(db.typedQuery, FEED)).get("cbbo-1m")).toBe(nanos("2026-03-03T14:34:00Z"));
  });

  it("prices a trade with its underlying's dividend yield, as the quotes are: its IV is the one the price was made with", async () => {
    const Q = 0.05;
    const SIGMA = 0.3;
    await db.typedQuery(
      `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage, dividend_yield) values ('AAPL', 'Apple', 'stock', 'x', true, true, $1)`,
      [Q],
    );
    await db.typedQuery(`insert into equity_quotes (symbol, price, as_of) values ('AAPL', 100, '2026-03-03T14:30:00Z')`);
    const stream = new OpraStream();
    const c = contract(100, "call");
    const at = new Date("2026-03-03T14:31:10Z");
    const price = bsm({ S: 100, K: 100, T: yearsToExpiry("2026-03-20", "pm", at), r: 0.04, q: Q, sigma: SIGMA, side: "call" }).price;
    const rounded = Math.round(price * 100) / 100;
    await run([stream.define(c, "AAPL", "2026-03-03T11:00:00Z"), stream.trade(c, at, rounded, 5, rounded - 0.05, rounded + 0.05)]);
    const { rows } = await db.typedQuery(`select iv, iv_source from flow_prints`);
    expect(rows[0]!.iv_source).toBe("trade");
    // The cent's rounding moves the IV by under 0.001; a yield of 0 would move it by about 0.01.
    expect(Math.abs(Number(rows[0]!.iv) - SIGMA)).toBeLessThan(0.002);
  });
});

describe("records out of bounds, through the feed's reader", () => {
  /** The records as one stream through `consumeFeed`; `now` makes it a live feed's. */
  const feed = (records: DbnRecord[], now?: () => Date) =>
    consumeFeed(db, () => [{ records: feedOf(records) }], { feed: FEED, log: () => undefined, now });

  it("live, drops open interest received days ahead of the wall clock: no later session is staged and switched in over today's", async () => {
    const stream = new OpraStream();
    const [call, put] = [contract(100, "call"), contract(100, "put")];
    stream.define(call, "AAPL", "2026-03-03T11:00:00Z");
    stream.define(put, "AAPL", "2026-03-03T11:00:00Z");
    stream.openInterest(call, "2026-03-03T11:30:00Z", 100);
    stream.openInterest(put, "2026-03-03T11:30:00Z", 200);
    // One statistic stamped three days on (Friday's session): switched in, it would set every contract it does not name to 0.
    stream.rawOpenInterest(call, "2026-03-06T11:30:01Z", 999);
    const report = await feed(stream.records, () => new Date("2026-03-03T11:45:00Z"));
    expect((await table()).quotes.map((q) => q.open_interest)).toEqual([100, 200]);
    const state = await db.typedQuery(`select open_interest_date::text as d from market_state`);
    expect(state.rows[0]!.d).toBe("2026-03-03");
    expect((await db.typedQuery(`select count(*)::int as n from open_interest_staged`)).rows[0]!.n).toBe(0);
    expect(report.dropped).toEqual({ "implausible-time": 1 });
  });
});

/** Fails with `error` after `ms` (a lane that never gives up would otherwise hold the test until its timeout). */
const within = <T>(work: Promise<T>, ms: number, error: string) =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(error)), ms))]);

describe("writes the database refuses for their data", () => {
  it("tell a data error (SQLSTATE class 22 or 23, a value COPY cannot encode) from the database being away", () => {
    const sql = (code: string) => Object.assign(new Error(code), { code });
    for (const code of ["22003", "22021", "22P02", "23505", "23503"]) expect(isDataError(sql(code)), code).toBe(true);
    for (const code of ["57P01", "40P01", "40001", "53300", "08006", "42P01", "ECONNREFUSED"])
      expect(isDataError(sql(code)), code).toBe(false);
    expect(isDataError(new RangeError('The value of "value" is out of range.'))).toBe(true);
    expect(isDataError(new TypeError("COPY executed_at: not a timestamp: x"))).toBe(true);
    expect(isDataError(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isDataError(new DatabaseUnavailableError("query", sql("57P01")))).toBe(false);
    expect(isDataError(new Error("connection lost"))).toBe(false);
  });

  it("a lane writes a refused batch in halves down to the events refused alone, skips those, and stops no position inside a receive time", async () => {
    type E = { position: FeedPosition; bad?: boolean };
    const at = (tsRecv: bigint, bad = false): E => ({ position: { schema: "tcbbo", tsRecv }, bad });
    const writes: { batch: bigint[]; through: bigint | undefined; ok: boolean }[] = [];
    const refused: bigint[] = [];
    const lane = new Lane<E>(
      "trades",
      async (batch, through) => {
        const ok = !batch.some((e) => e.bad);
        writes.push({ batch: batch.map((e) => e.position.tsRecv), through, ok });
        if (!ok) throw Object.assign(new Error("integer out of range"), { code: "22003" });
      },
      {
        maxBatch: 100,
        retryMs: 1,
        maxRetryMs: 1,
        onWritten: () => undefined,
        onFailed: () => undefined,
        onRefused: (_lane, event) => refused.push(event.position.tsRecv),
      },
    );
    // Receive time 2 holds three events, the middle one bad; 5 is bad alone.
    for (const e of [at(1n), at(2n), at(2n, true), at(2n), at(3n), at(5n, true)]) lane.push(e);
    lane.pump(10n, false, () => undefined, true);
    await within(lane.busy!, 5_000, "the lane retried a refused batch");
    expect(refused).toEqual([2n, 5n]);
    // Halves of halves: the parts written before receive time 2's last part stop their positions at 1.
    expect(writes.filter((w) => w.ok)).toEqual([
      { batch: [1n], through: 1n, ok: true },
      { batch: [2n], through: 1n, ok: true },
      { batch: [2n], through: undefined, ok: true },
      { batch: [3n], through: undefined, ok: true },
    ]);
    expect(writes.filter((w) => !w.ok).map((w) => w.batch)).toEqual([
      [1n, 2n, 2n, 2n, 3n, 5n],
      [1n, 2n, 2n],
      [2n, 2n],
      [2n],
      [2n, 3n, 5n],
      [3n, 5n],
      [5n],
    ]);
  });

  it("a trade whose running volume passes an int4 is skipped, counted and logged; the rest of its batch is stored and the lane goes on", async () => {
    const stream = new OpraStream();
    const [call, put] = [contract(100, "call"), contract(100, "put")];
    stream.define(call, "AAPL", "2026-03-03T11:00:00Z");
    stream.define(put, "AAPL", "2026-03-03T11:00:00Z");
    stream.trade(call, "2026-03-03T14:31:00Z", 1.05, 1_500_000_000, 1, 1.1);
    // Each size fits flow_prints.size; the session's volume after this one (2.5 billion) fits no int4.
    stream.trade(call, "2026-03-03T14:31:01Z", 1.05, 1_000_000_000, 1, 1.1);
    stream.trade(put, "2026-03-03T14:31:02Z", 2.05, 5, 2, 2.1);
    stream.trade(call, "2026-03-03T14:31:03Z", 1.06, 10, 1, 1.1);
    const logged: Record<string, unknown>[] = [];
    const report = await within(
      consumeFeed(db, () => [{ records: feedOf(stream.records) }], { feed: FEED, log: (f) => logged.push(f) }),
      20_000,
      "the trades lane retried a batch the database refused",
    );
    const { prints, quotes } = await table();
    expect(prints.map((p) => [p.size, p.volume])).toEqual([
      [1_500_000_000, 1_500_000_000],
      [5, 5],
      [10, 1_500_000_010],
    ]);
    expect(quotes.map((q) => q.volume)).toEqual([1_500_000_010, 5]);
    expect(report.dropped).toEqual({ unstorable: 1 });
    expect(logged.filter((l) => l.event === "ingest_dropped")).toMatchObject([
      {
        reason: "unstorable",
        lane: "trades",
        schema: "tcbbo",
        optionSymbol: "AAPL260320C00100000",
        tsRecv: String(nanos("2026-03-03T14:31:01.001Z")),
      },
    ]);
  });

  it("open interest the database refuses (an int4's past, given past the reader) is skipped; the day's other figures are switched in", async () => {
    const stream = new OpraStream();
    const [call, put] = [contract(100, "call"), contract(100, "put")];
    const ingestor = await Ingestor.start(db, { feed: FEED, log: () => undefined });
    await ingestor.accept(stream.define(call, "AAPL", "2026-03-03T11:00:00Z"));
    await ingestor.accept(stream.define(put, "AAPL", "2026-03-03T11:00:00Z"));
    await ingestor.accept({ ...stream.openInterest(call, "2026-03-03T11:30:00Z", 1), openInterest: 2 ** 31 });
    await ingestor.accept(stream.openInterest(put, "2026-03-03T11:30:01Z", 300));
    await within(ingestor.drain({ endOfFeed: true }), 20_000, "the contracts lane retried a batch the database refused");
    expect(ingestor.counts.unstorable).toBe(1);
    expect((await table()).quotes.map((q) => q.open_interest)).toEqual([0, 300]);
  });

  it("a write that fails for the database, not its data, is retried with the same events: nothing is dropped", async () => {
    let failures = 2;
    const away: IngestDatabase = {
      typedQuery: (text, params) => db.typedQuery(text, params),
      typedTransaction: (body) =>
        db.typedTransaction((query, copy) =>
          body(async (text, params) => {
            if (text.includes("insert into flow_prints") && failures-- > 0) {
              throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
            }
            return query(text, params);
          }, copy),
        ),
    };
    const stream = new OpraStream();
    const c = contract(100, "call");
    const log: Record<string, unknown>[] = [];
    const ingestor = await Ingestor.start(away, { feed: FEED, log: (f) => log.push(f), lane: { retryMs: 10, maxRetryMs: 20 } });
    await ingestor.accept(stream.define(c, "AAPL", "2026-03-03T11:00:00Z"));
    for (let i = 0; i < 3; i++)
      await ingestor.accept(stream.trade(c, new Date(Date.parse("2026-03-03T14:31:00Z") + i * 1000), 1.05, 1, 1, 1.1));
    await ingestor.drain({ endOfFeed: true });
    expect(log.filter((l) => l.event === "ingest_write_failed")).toHaveLength(2);
    expect(ingestor.counts.unstorable).toBe(0);
    expect((await table()).prints).toHaveLength(3);
  });
});
