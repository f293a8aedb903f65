import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MarketEvent } from "../../ingest/events";
import type { IngestDatabase } from "../../ingest/db/database";
import { Ingestor } from "../../ingest/pipeline/ingestor";
import { consumeFeed } from "../../ingest/sources/opra/replay";
import { markSql } from "../../ingest/quotes/mark";
import { isRolled } from "../../ingest/session/roll-session";
import { seedMarket } from "../../devkit/generator/seed-market";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import type { OccContract } from "../../src/domain/occ";
import { ingestDatabase } from "../support/ingest-database";
import { feedOf, nanos, OpraStream } from "./opra-stream";

/** Thursday 2026-07-02, before the Independence Day holiday and a weekend: the next session is Monday 07-06. */
const SESSION = "2026-07-02";
const FEED = "databento-opra";

describe("a feed that reaches the next session before the stored one was rolled (the ingestor away over its 16:30 roll)", () => {
  let db: SqlBackend;
  let contract: OccContract & { symbol: string; underlying: string };
  const logged: Record<string, unknown>[] = [];

  /** Runs an ingestor over the events to the feed's end. */
  async function run(events: MarketEvent[]) {
    const ingestor = await Ingestor.start(db, { feed: FEED, log: (fields) => logged.push(fields) });
    for (const e of events) await ingestor.accept(e);
    await ingestor.drain({ endOfFeed: true });
  }

  const quote = async () =>
    (
      await db.typedQuery(`select volume, ${markSql("q")} as mark, iv, last_trade_at from option_quotes q where option_symbol = $1`, [
        contract.symbol,
      ])
    ).rows[0]!;

  beforeAll(async () => {
    db = await ingestDatabase();
    await seedMarket(db, { size: "test", seed: 4, sessionDate: SESSION });
    // The session's spots, as the quotes writer leaves them: the roll's daily bar.
    await db.typedQuery(`update equity_quotes set session_date = $1, open = price, high = price * 1.01, low = price * 0.99`, [SESSION]);
    const { rows } = await db.typedQuery(
      `select option_symbol, underlying, root, expiration::text as expiration, strike, side from option_quotes
        where expiration > '2026-07-06' and bid > 0 and ask > bid order by open_interest desc, option_symbol limit 1`,
    );
    const r = rows[0]!;
    contract = {
      symbol: r.option_symbol as string,
      underlying: r.underlying as string,
      root: r.root as string,
      expiration: r.expiration as string,
      strike: r.strike as number,
      side: r.side as "call" | "put",
    };
  }, 180_000);
  afterAll(async () => db.close());

  it("writes the stored session's own late trade without a roll, then rolls it before the next session's first trade and quote", async () => {
    const stream = new OpraStream();
    // 15:59 ET on the Thursday: the session's last trade of the contract.
    await run([stream.trade(contract, "2026-07-02T19:59:00Z", 2.5, 7, 2.4, 2.6)]);
    expect(await isRolled(db.typedQuery, SESSION)).toBe(false);
    const closing = await quote();
    expect(new Date(closing.last_trade_at as Date).toISOString()).toBe("2026-07-02T19:59:00.000Z");

    // The ingestor back on Monday: the feed goes on with the Monday's first trade and minute.
    await run([
      stream.trade(contract, "2026-07-06T13:30:30Z", 2.7, 3, 2.6, 2.8),
      stream.quote(contract, "2026-07-06T13:31:00Z", 2.6, 2.8, 2.7),
    ]);
    expect(await isRolled(db.typedQuery, SESSION)).toBe(true);
    expect(logged).toContainEqual(expect.objectContaining({ event: "session_rolled", session: SESSION, before: "next_session" }));
    // The Thursday's history is the Thursday's: its volume, mark and IV as the session left them, not the Monday's.
    const day = (
      await db.typedQuery(`select volume, open_interest, mark, iv from option_daily where option_symbol = $1 and date = $2`, [
        contract.symbol,
        SESSION,
      ])
    ).rows[0]!;
    expect(day).toMatchObject({ volume: closing.volume, mark: closing.mark, iv: closing.iv });
    expect(closing.volume).toBeGreaterThanOrEqual(7);
    const bar = await db.typedQuery(`select count(*)::int as n from equity_daily where symbol = $1 and date = $2`, [
      contract.underlying,
      SESSION,
    ]);
    expect(bar.rows[0]!.n).toBe(1);
    // Then the Monday was written: the market's session, the contract's session volume (its one trade) and quote.
    const monday = await quote();
    expect(monday.volume).toBe(3);
    expect(monday.mark).toBeCloseTo(2.7, 12);
    const state = await db.typedQuery(`select session_date::text as d from market_state`);
    expect(state.rows[0]!.d).toBe("2026-07-06");
    // The Monday's baselines, which the roll writes, are there for the screener.
    const baselines = await db.typedQuery(`select count(*)::int as n from screener_baselines where session_date = '2026-07-06'`);
    expect(baselines.rows[0]!.n).toBeGreaterThan(0);
  }, 120_000);

  it("given two sessions at once, rolls each before the next: a replay of several sessions", async () => {
    const stream = new OpraStream();
    // Tuesday 07-07 and Wednesday 07-08, read in one go: both days' events queued before the first is written.
    await run([
      stream.trade(contract, "2026-07-07T13:30:30Z", 2.9, 5, 2.8, 3.0),
      stream.quote(contract, "2026-07-07T13:31:00Z", 2.8, 3.0, 2.9),
      stream.trade(contract, "2026-07-08T13:30:30Z", 3.1, 2, 3.0, 3.2),
      stream.quote(contract, "2026-07-08T13:31:00Z", 3.0, 3.2, 3.1),
    ]);
    for (const session of ["2026-07-06", "2026-07-07"]) expect(await isRolled(db.typedQuery, session), session).toBe(true);
    expect(await isRolled(db.typedQuery, "2026-07-08")).toBe(false);
    const history = await db.typedQuery(
      `select date::text as d, volume, mark from option_daily where option_symbol = $1 and date > $2 order by 1`,
      [contract.symbol, SESSION],
    );
    expect(history.rows).toEqual([
      { d: "2026-07-06", volume: 3, mark: expect.closeTo(2.7, 12) as number },
      { d: "2026-07-07", volume: 5, mark: expect.closeTo(2.9, 12) as number },
    ]);
    const wednesday = await quote();
    expect(wednesday.volume).toBe(2);
    const state = await db.typedQuery(`select session_date::text as d from market_state`);
    expect(state.rows[0]!.d).toBe("2026-07-08");
  }, 120_000);

  it("retries a roll that failed (the database away), writing nothing of the next session meanwhile", async () => {
    const stream = new OpraStream();
    let failures = 1;
    // The real database, refusing the roll's first transaction once.
    const flaky: IngestDatabase = {
      typedQuery: (text, params) => db.typedQuery(text, params),
      typedTransaction: (body) =>
        db.typedTransaction((query, copy) =>
          body(async (text, params) => {
            if (text.includes("insert into option_daily") && failures-- > 0) throw new Error("connection lost");
            return query(text, params);
          }, copy),
        ),
    };
    const log: Record<string, unknown>[] = [];
    const ingestor = await Ingestor.start(flaky, { feed: FEED, log: (f) => log.push(f), lane: { maxRetryMs: 50 } });
    for (const e of [
      stream.trade(contract, "2026-07-09T13:30:30Z", 3.3, 4, 3.2, 3.4),
      stream.quote(contract, "2026-07-09T13:31:00Z", 3.2, 3.4, 3.3),
    ])
      await ingestor.accept(e);
    await ingestor.drain({ endOfFeed: true });
    const events = log.map((f) => f.event).filter((e) => String(e).startsWith("session_roll"));
    expect(events).toEqual(["session_roll_failed", "session_rolled"]);
    expect(await isRolled(db.typedQuery, "2026-07-08")).toBe(true);
    // The Wednesday's history is the Wednesday's (its one trade), though the roll ran twice.
    const day = await db.typedQuery(`select volume from option_daily where option_symbol = $1 and date = '2026-07-08'`, [contract.symbol]);
    expect(day.rows[0]!.volume).toBe(2);
    expect((await quote()).volume).toBe(4);
  }, 120_000);

  it("over a session the feed skipped, rolls the stored one and writes the baselines of the session it reaches", async () => {
    const stream = new OpraStream();
    // Thursday 07-09 is stored; the feed has nothing of Friday 07-10 and goes on with Monday 07-13.
    await run([
      stream.trade(contract, "2026-07-13T13:30:30Z", 3.5, 6, 3.4, 3.6),
      stream.quote(contract, "2026-07-13T13:31:00Z", 3.4, 3.6, 3.5),
    ]);
    expect(await isRolled(db.typedQuery, "2026-07-09")).toBe(true);
    expect(logged).toContainEqual(expect.objectContaining({ event: "session_skipped", session: "2026-07-10", baselines: "2026-07-13" }));
    const state = await db.typedQuery(`select session_date::text as d from market_state`);
    expect(state.rows[0]!.d).toBe("2026-07-13");
    expect((await quote()).volume).toBe(6);
    // The screener's baselines of the session reached (the contracts' and the underlyings'), written before it opened,
    // beside the Thursday's the screener served until then; the Friday's, which its roll wrote, are gone.
    for (const table of ["screener_baselines", "screener_underlying_baselines"]) {
      const sessions = await db.typedQuery(`select session_date::text as d, count(*)::int as n from ${table} group by 1 order by 1`);
      expect(
        sessions.rows.map((r) => r.d),
        table,
      ).toEqual(["2026-07-09", "2026-07-13"]);
      expect(sessions.rows[1]!.n, table).toBeGreaterThan(0);
    }
  }, 120_000);

  it("never rolls today's session at 10:00 for a trade stamped 15 h after its receipt: the feed's reader drops the trade", async () => {
    const stream = new OpraStream();
    // Monday 07-13 is the stored session, open; the feed goes on at 10:00 ET.
    stream.map(contract, "2026-07-13T13:59:00Z");
    stream.quote(contract, "2026-07-13T14:00:00Z", 3.4, 3.6, 3.5);
    // Received at 10:00:30, stamped 01:00:30 on the Tuesday: taken at its word, Tuesday's session would begin.
    stream.rawTrade(contract, { tsRecv: nanos("2026-07-13T14:00:30Z"), tsEvent: nanos("2026-07-14T05:00:30Z"), price: 3.5, size: 9 });
    stream.trade(contract, "2026-07-13T14:01:00Z", 3.55, 2, 3.5, 3.6);
    const report = await consumeFeed(db, () => [{ records: feedOf(stream.records) }], { feed: FEED, log: (f) => logged.push(f) });
    expect(await isRolled(db.typedQuery, "2026-07-13")).toBe(false);
    // The session goes on: the Monday's trade of 6 and this one.
    expect((await quote()).volume).toBe(6 + 2);
    expect(report.dropped).toEqual({ "implausible-time": 1 });
  }, 120_000);
});
