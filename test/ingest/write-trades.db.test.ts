import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TradeEvent } from "../../ingest/events";
import { OpraEventReader } from "../../ingest/sources/opra/from-dbn";
import { OpraInstruments } from "../../ingest/sources/opra/instruments";
import { readPositions } from "../../ingest/db/positions";
import { writeTrades } from "../../ingest/flow/write-trades";
import { flowPartitionName } from "../../src/market/flow-partitions";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";
import { definitionV3, tcbbo, TS_EVENT, TS_RECV } from "./dbn-fixtures";

const FEED = "databento-opra";
const PRICING = { rate: 0.043, dividendYield: 0 };

/** A market database of its own (PGlite, or a database of its own on TEST_DATABASE_URL's server): the test counts every print it holds. */
async function marketDatabase(): Promise<SqlBackend> {
  const db = await ingestDatabase();
  await db.typedQuery(
    `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage) values ('AAPL', 'Apple', 'stock', 'x', true, true)`,
  );
  return db;
}

// Two databases (a restart is compared with one pass), emptied before each test.
let db: SqlBackend;
let once: SqlBackend;
beforeAll(async () => {
  db = await marketDatabase();
  once = await marketDatabase();
}, 60_000);
beforeEach(async () => {
  for (const d of [db, once]) await d.typedQuery("truncate flow_prints, feed_positions");
});
afterAll(async () => {
  await Promise.all([db.close(), once.close()]);
});

/**
 * Six tcbbo trades of one contract in three receive times, through the real OPRA reader: two in
 * one millisecond of one receive time (told apart by their ordinal), sizes 5, 3, 2, 7, 1, 4.
 */
function stream(): { first: TradeEvent[]; second: TradeEvent[] } {
  const reader = new OpraEventReader(new OpraInstruments(new Set()));
  reader.read(definitionV3().record);
  const at = (msAfter: bigint, recvAfter: bigint, size: number) =>
    reader.read({
      ...tcbbo().record,
      tsEvent: TS_EVENT + msAfter * 1_000_000n,
      tsRecv: TS_RECV + recvAfter * 1_000_000n,
      size,
    }) as TradeEvent;
  const trades = [at(0n, 0n, 5), at(0n, 0n, 3), at(10n, 10n, 2), at(11n, 10n, 7), at(20n, 20n, 1), at(21n, 20n, 4)];
  return { first: trades.slice(0, 4), second: trades.slice(4) };
}

/** Every stored print but its surrogate id, in time order. */
async function prints(db: SqlBackend) {
  const { rows } = await db.typedQuery(
    `select option_symbol, executed_at, sequence_number, size, volume, side, premium from flow_prints order by executed_at, sequence_number`,
  );
  return rows;
}

describe("writing trades with their feed position", () => {
  it("stores a stream batch by batch, the running session volume continued across batches", async () => {
    const { first, second } = stream();
    expect(await writeTrades(db, FEED, first, PRICING)).toMatchObject({ written: 4, skipped: 0 });
    expect(await writeTrades(db, FEED, second, PRICING)).toMatchObject({ written: 2, skipped: 0 });
    const stored = await prints(db);
    expect(stored.map((p) => p.volume)).toEqual([5, 8, 10, 17, 18, 22]);
    expect(new Set(stored.map((p) => `${new Date(p.executed_at as Date).getTime()}|${p.sequence_number}`)).size).toBe(6);
    expect(await readPositions(db.typedQuery, FEED)).toEqual(new Map([["tcbbo", TS_RECV + 20_000_000n]]));
  });

  it("replayed from the start after a restart, stores exactly what one pass does", async () => {
    const { first, second } = stream();
    await writeTrades(once, FEED, [...first, ...second], PRICING);
    // `db` stored the first batch, then stopped.
    await writeTrades(db, FEED, first, PRICING);
    // The feed replays from before the stored position: what was stored is skipped, the rest written.
    expect(await writeTrades(db, FEED, [...first, ...second], PRICING)).toMatchObject({ written: 2, skipped: 4 });
    expect(await writeTrades(db, FEED, [...first, ...second], PRICING)).toMatchObject({ written: 0, skipped: 6 });
    expect(await prints(db)).toEqual(await prints(once));
  });

  it("stores nothing of a batch that fails, and keeps its position where it was", async () => {
    const { first, second } = stream();
    await writeTrades(db, FEED, first, PRICING);
    // A size past the column's range fails the insert after the first rows of the batch were prepared.
    const broken = [second[0]!, { ...second[1]!, size: 3_000_000_000 }];
    await expect(writeTrades(db, FEED, broken, PRICING)).rejects.toThrow();
    expect((await prints(db)).length).toBe(4);
    expect(await readPositions(db.typedQuery, FEED)).toEqual(new Map([["tcbbo", TS_RECV + 10_000_000n]]));
    expect(await writeTrades(db, FEED, second, PRICING)).toMatchObject({ written: 2, skipped: 0 });
    expect((await prints(db)).map((p) => p.volume)).toEqual([5, 8, 10, 17, 18, 22]);
  });

  it("writes a session's prints into the session's own partition, taking over those the default partition held", async () => {
    const fresh = await marketDatabase();
    try {
      const { first, second } = stream();
      const session = first[0]!.sessionDate;
      // A print of the session stored before its partition existed (as a test fixture's SQL stores one).
      await fresh.typedQuery(
        `insert into flow_prints (executed_at, session_date, ticker, option_symbol, option_type, strike, expiration, price, size, premium,
           side, sentiment, execution_type, volume, is_etf_or_index)
         values ($1, $2, 'AAPL', 'AAPL261218P00100000', 'put', 100, '2026-12-18', 1, 1, 100, 'bid', 'bullish', 'split', 1, false)`,
        [first[0]!.executedAt.toISOString(), session],
      );
      const partitions = async () =>
        Object.fromEntries(
          (await fresh.typedQuery(`select tableoid::regclass::text as p, count(*)::int as n from flow_prints group by 1`)).rows.map((r) => [
            r.p,
            r.n,
          ]),
        );
      expect(await partitions()).toEqual({ flow_prints_other: 1 });
      await writeTrades(fresh, FEED, [...first, ...second], PRICING);
      expect(await partitions()).toEqual({ [flowPartitionName(session)]: 7 });
      expect((await prints(fresh)).filter((p) => p.option_symbol === "AAPL261218P00100000")).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });
});
