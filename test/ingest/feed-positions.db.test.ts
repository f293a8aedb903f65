import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbnRecord } from "../../ingest/dbn";
import { advancePositions, batchPositions, isPending, readPositions } from "../../ingest/db/positions";
import { consumeFeed } from "../../ingest/sources/opra/replay";
import { openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";
import { feedOf, nanos, OpraStream } from "./opra-stream";
import { testDatabaseUrl } from "../support/test-database";

// The suite's engine: PostgreSQL when TEST_DATABASE_URL names one, else an embedded PGlite.
let db: SqlBackend;
beforeAll(async () => {
  db = await openBackend({ databaseUrl: testDatabaseUrl(), dataDir: "memory://" });
  await db.migrate("drizzle");
  await db.typedQuery("create table if not exists feed_positions_probe (feed text, n int)");
}, 60_000);
afterAll(async () => {
  await db.typedQuery("drop table if exists feed_positions_probe");
  await db.close();
});

/** A feed name of its own per test: the PostgreSQL database is shared with the rest of the suite. */
const newFeed = () => `test-${randomUUID()}`;

describe("feed positions", () => {
  it("start empty, and move with the data in one transaction", async () => {
    const feed = newFeed();
    expect(await db.typedTransaction((q) => readPositions(q, feed))).toEqual(new Map());
    await db.typedTransaction(async (q) => {
      await q("insert into feed_positions_probe values ($1, 1)", [feed]);
      await advancePositions(q, feed, new Map([["tcbbo", 1_736_519_400_123_457_789n]]));
    });
    expect(await readPositions(db.typedQuery, feed)).toEqual(new Map([["tcbbo", 1_736_519_400_123_457_789n]]));
  });

  it("stay where they were when the batch fails, its data with them", async () => {
    const feed = newFeed();
    await db.typedTransaction((q) => advancePositions(q, feed, new Map([["tcbbo", 100n]])));
    const failed = db.typedTransaction(async (q) => {
      await q("insert into feed_positions_probe values ($1, 2)", [feed]);
      await advancePositions(q, feed, new Map([["tcbbo", 200n]]));
      throw new Error("killed mid-batch");
    });
    await expect(failed).rejects.toThrow("killed mid-batch");
    expect(await readPositions(db.typedQuery, feed)).toEqual(new Map([["tcbbo", 100n]]));
    expect((await db.typedQuery("select count(*)::int as n from feed_positions_probe where feed = $1", [feed])).rows[0]!.n).toBe(0);
  });

  it("never move backward, and keep each schema and each feed apart", async () => {
    const feed = newFeed();
    const other = newFeed();
    await db.typedTransaction((q) =>
      advancePositions(
        q,
        feed,
        new Map([
          ["tcbbo", 500n],
          ["cbbo-1m", 60n],
        ]),
      ),
    );
    await db.typedTransaction((q) =>
      advancePositions(
        q,
        feed,
        new Map([
          ["tcbbo", 400n],
          ["statistics", 7n],
        ]),
      ),
    );
    await db.typedTransaction((q) => advancePositions(q, other, new Map([["tcbbo", 1n]])));
    expect(await readPositions(db.typedQuery, feed)).toEqual(
      new Map([
        ["tcbbo", 500n],
        ["cbbo-1m", 60n],
        ["statistics", 7n],
      ]),
    );
    expect(await readPositions(db.typedQuery, other)).toEqual(new Map([["tcbbo", 1n]]));
  });
});

describe("resuming after a position", () => {
  const at = (schema: "tcbbo" | "cbbo-1m", tsRecv: bigint) => ({ position: { schema, tsRecv } });

  it("passes only events received after their schema's position", () => {
    const stored = new Map([["tcbbo", 100n] as const]);
    expect(isPending(stored, at("tcbbo", 100n).position)).toBe(false);
    expect(isPending(stored, at("tcbbo", 101n).position)).toBe(true);
    // A schema without a position starts from the beginning.
    expect(isPending(stored, at("cbbo-1m", 1n).position)).toBe(true);
  });

  it("takes each schema's newest receive time in a batch, in any order", () => {
    const batch = [at("tcbbo", 7n), at("cbbo-1m", 60n), at("tcbbo", 9n), at("tcbbo", 8n)];
    expect(batchPositions(batch)).toEqual(
      new Map([
        ["tcbbo", 9n],
        ["cbbo-1m", 60n],
      ]),
    );
  });
});

describe("a live feed's positions", () => {
  it("never pass the wall clock: a trade received days ahead of it is dropped, and the feed's next trades are still written", async () => {
    const market = await ingestDatabase();
    try {
      await market.typedQuery(
        `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2026-03-03T14:00:00Z', '2026-03-03', 0.04, 'seed')`,
      );
      const c = { root: "AAPL", expiration: "2026-03-20", strike: 100, side: "call" } as const;
      const live = (records: DbnRecord[], now: string) =>
        consumeFeed(market, () => [{ records: feedOf(records) }], {
          feed: "databento-opra",
          log: () => undefined,
          now: () => new Date(now),
        });
      const stream = new OpraStream();
      stream.define(c, "AAPL", "2026-03-03T11:00:00Z");
      stream.trade(c, "2026-03-03T14:31:00Z", 1.05, 1, 1, 1.1);
      // Received (and executed) three days on: stored, its receive time would become the position.
      stream.trade(c, "2026-03-06T14:31:00Z", 1.05, 1, 1, 1.1);
      const first = await live(stream.records, "2026-03-03T14:32:00Z");
      expect((await readPositions(market.typedQuery, "databento-opra")).get("tcbbo")).toBe(nanos("2026-03-03T14:31:00.001Z"));
      expect(first.dropped).toEqual({ "implausible-time": 1 });

      // The feed after a reconnect: its next trade is past the position, so it is written.
      const next = new OpraStream();
      next.define(c, "AAPL", "2026-03-03T11:00:00Z");
      next.trade(c, "2026-03-03T14:31:30Z", 1.1, 2, 1, 1.2);
      const second = await live(next.records, "2026-03-03T14:32:30Z");
      expect(second).toMatchObject({ accepted: 1, skipped: 1 });
      const prints = await market.typedQuery(`select executed_at from flow_prints order by 1`);
      expect(prints.rows.map((r) => new Date(r.executed_at as Date).toISOString())).toEqual([
        "2026-03-03T14:31:00.000Z",
        "2026-03-03T14:31:30.000Z",
      ]);
      expect((await readPositions(market.typedQuery, "databento-opra")).get("tcbbo")).toBe(nanos("2026-03-03T14:31:30.001Z"));
    } finally {
      await market.close();
    }
  }, 60_000);
});
