import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advancePositions, batchPositions, isPending, readPositions } from "../../ingest/pipeline/positions";
import { openBackend, type SqlBackend } from "../../scripts/sql-endpoint/sql-backend";

// The suite's engine: PostgreSQL when DATABASE_URL names one, else an embedded PGlite.
let db: SqlBackend;
beforeAll(async () => {
  db = await openBackend({ databaseUrl: process.env.DATABASE_URL, dataDir: "memory://" });
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
