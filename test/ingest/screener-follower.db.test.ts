import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QuoteEvent } from "../../ingest/events";
import { bumpScopes } from "../../ingest/db/versions";
import { loadQuoteMarket } from "../../ingest/quotes/load-quote-market";
import { writeQuotes } from "../../ingest/quotes/write-quotes";
import { followScreener, refreshMovedPartitions } from "../../ingest/screener/follow-screener";
import { movedPartitions, readPartitions, rebuildAllPartitions, refreshPartition } from "../../ingest/screener/partitions";
import { seedMarket } from "../../devkit/generator/seed-market";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";
import { testDatabaseUrl } from "../support/test-database";

let db: SqlBackend;
/** Partition size that cuts the test market into a few partitions. */
let size: number;
const logged: Record<string, unknown>[] = [];
const log = (fields: Record<string, unknown>) => void logged.push(fields);

beforeAll(async () => {
  db = await ingestDatabase();
  await seedMarket(db, { size: "test", seed: 5 });
  const { rows } = await db.typedQuery("select count(*)::int as n from option_quotes");
  size = Math.ceil((rows[0]!.n as number) / 4);
}, 180_000);
afterAll(async () => db.close());

/** The whole table's content, as one hash. */
async function digest(): Promise<{ d: string; n: number }> {
  const { rows } = await db.typedQuery(
    "select md5(string_agg(s::text, '|' order by s.option_key)) as d, count(*)::int as n from screener_contracts s",
  );
  return rows[0] as { d: string; n: number };
}

/** Which partition holds each underlying's rows. */
async function partitionOf(): Promise<Map<string, string>> {
  const { rows } = await db.typedQuery(
    "select symbol, min(tableoid::regclass::text) as p, count(distinct tableoid)::int as n from screener_contracts group by symbol",
  );
  for (const r of rows) expect(r.n, `${r.symbol as string} lies in one partition`).toBe(1);
  return new Map(rows.map((r) => [r.symbol as string, r.p as string]));
}

/** Every scan of the capped count of a side's DTE window: an index-only scan that visits no heap page. */
async function countScans(): Promise<{ node: string; heapFetches: number }[]> {
  return db.typedTransaction(async (query) => {
    await query("set local enable_seqscan = off");
    await query("set local enable_bitmapscan = off");
    const { rows } = await query(
      `explain (analyze, format json) select count(*) from (select 1 from screener_contracts
        where type = 'put' and expiration between (select session_date + 20 from market_state) and (select session_date + 45 from market_state) limit 1000) c`,
    );
    const plan = rows[0]!["QUERY PLAN"];
    const scans: { node: string; heapFetches: number }[] = [];
    const walk = (node: Record<string, unknown>) => {
      const type = node["Node Type"] as string;
      if (type.includes("Scan") && String(node["Relation Name"]).startsWith("screener_contracts"))
        scans.push({ node: type, heapFetches: Number(node["Heap Fetches"] ?? -1) });
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk((typeof plan === "string" ? JSON.parse(plan) : plan)[0].Plan);
    return scans;
  });
}

describe("the screener's partitions", () => {
  it("a rebuild cuts the market into partitions of whole underlyings holding every row once, each keyed, indexed and all-visible", async () => {
    const whole = await digest();
    // A build cut short earlier left its table behind.
    await db.typedQuery("create table screener_contracts_999 (stale int)");
    expect(await rebuildAllPartitions(db, size)).toBe(whole.n);
    expect(await digest()).toEqual(whole);
    const partitions = await readPartitions(db.typedQuery);
    expect(partitions.length).toBeGreaterThanOrEqual(3);
    expect(partitions[0]!.lower).toBeNull();
    expect(partitions.at(-1)!.upper).toBeNull();
    for (let i = 1; i < partitions.length; i++) expect(partitions[i]!.lower).toBe(partitions[i - 1]!.upper);
    const holders = await partitionOf();
    for (const [symbol, holder] of holders) {
      const p = partitions.find((x) => x.name === holder)!;
      expect((p.lower === null || symbol >= p.lower) && (p.upper === null || symbol < p.upper), symbol).toBe(true);
    }
    for (const p of partitions) {
      const { rows } = await db.typedQuery("select count(*)::int as n from pg_indexes where tablename = $1", [p.name]);
      expect(rows[0]!.n, p.name).toBe(5);
    }
    expect((await db.typedQuery("select to_regclass('screener_contracts_999') as t")).rows[0]!.t).toBeNull();
    const scans = await countScans();
    expect(scans.length).toBe(partitions.length);
    for (const scan of scans) expect(scan).toEqual({ node: "Index Only Scan", heapFetches: 0 });
  }, 120_000);

  it("a quote that moves rebuilds its underlying's partition alone, to the rows a whole rebuild gives; a trade moves none", async () => {
    await rebuildAllPartitions(db, size);
    const before = await readPartitions(db.typedQuery);
    const holders = await partitionOf();
    const symbols = [...holders.keys()].sort();
    const [moved, traded] = [symbols[Math.floor(symbols.length / 2)]!, symbols.at(-1)!];
    expect(holders.get(moved)).not.toBe(holders.get(traded));
    const premium = async () =>
      (await db.typedQuery("select sum(premium)::float8 as p from screener_contracts where symbol = $1 and premium is not null", [moved]))
        .rows[0]!.p as number;
    const was = await premium();
    const { rows } = await db.typedQuery(
      "update option_quotes set bid = bid + 0.05, ask = ask + 0.05 where underlying = $1 and bid >= 0 and ask > 0 and ask >= bid returning 1",
      [moved],
    );
    await db.typedTransaction((query) => bumpScopes(query, { scopes: new Set([moved, `${traded}:traded`, "*:iv"]), asOf: new Date() }));
    expect((await movedPartitions(db.typedQuery)).map((p) => p.name)).toEqual([holders.get(moved)]);

    const stop = new AbortController();
    const following = followScreener(db, { log, signal: stop.signal, intervalMs: 20 });
    for (let i = 0; i < 500 && (await readPartitions(db.typedQuery)).some((p) => p.name === holders.get(moved)); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    await following;

    expect(await premium()).toBeCloseTo(was + 0.05 * rows.length, 6);
    const after = await readPartitions(db.typedQuery);
    expect(after.map((p) => [p.lower, p.upper])).toEqual(before.map((p) => [p.lower, p.upper]));
    const renamed = after.filter((p, i) => p.name !== before[i]!.name);
    expect(renamed.map((p) => p.lower)).toEqual([before.find((p) => p.name === holders.get(moved))!.lower]);
    expect(await movedPartitions(db.typedQuery)).toEqual([]);
    expect(logged.filter((l) => l.event === "screener_refreshed")).toHaveLength(1);
    const followed = await digest();
    await rebuildAllPartitions(db, size);
    expect(await digest()).toEqual(followed);
    expect(await refreshMovedPartitions(db, log)).toBe(0);
  }, 120_000);

  it("rebuilds the longest stale partition first, whatever its symbols", async () => {
    await rebuildAllPartitions(db, size);
    const holders = await partitionOf();
    const symbols = [...holders.keys()].sort();
    const [low, high] = [symbols[0]!, symbols.at(-1)!];
    const bump = (scopes: string[]) => db.typedTransaction((query) => bumpScopes(query, { scopes: new Set(scopes), asOf: new Date() }));
    await bump([low]);
    const [lowPartition] = await movedPartitions(db.typedQuery);
    expect(lowPartition!.name).toBe(holders.get(low));
    const rebuilt = await refreshPartition(db, lowPartition!);
    // Both move now: the high symbols' partition, built before the low one's, goes first.
    await bump([low, high]);
    expect((await movedPartitions(db.typedQuery)).map((p) => p.name)).toEqual([holders.get(high), rebuilt!.name]);
    await refreshMovedPartitions(db, log);
  }, 120_000);

  it("a minute written over the whole market moves each partition in one transaction: each is rebuilt once", async () => {
    await rebuildAllPartitions(db, size);
    const partitions = await readPartitions(db.typedQuery);
    expect(partitions.length).toBeGreaterThan(2);
    const { rows } = await db.typedQuery(
      `select distinct on (q.underlying) q.option_symbol, q.underlying, q.root, q.expiration::text as expiration, q.strike, q.side,
         q.settlement, q.bid, q.ask, s.as_of
         from option_quotes q, market_state s where q.bid > 0 and q.ask > q.bid order by q.underlying, q.option_symbol`,
    );
    const asOf = new Date(new Date(rows[0]!.as_of as string).getTime() + 60_000);
    const events: QuoteEvent[] = rows.map((r) => ({
      kind: "quote",
      position: { schema: "cbbo-1m", tsRecv: BigInt(asOf.getTime()) * 1_000_000n },
      asOf,
      optionSymbol: r.option_symbol as string,
      underlying: r.underlying as string,
      isIndex: false,
      settlement: r.settlement as "am" | "pm",
      contract: { root: r.root as string, expiration: r.expiration as string, strike: Number(r.strike), side: r.side as "call" | "put" },
      bid: Number(r.bid) + 0.01,
      ask: Number(r.ask) + 0.01,
      bidSize: 10,
      askSize: 10,
      last: null,
    }));
    // Every underlying fits one group of the writer's size: only the partitions' bounds split the minute.
    await writeQuotes(db, "test-minute", events, await loadQuoteMarket(db.typedQuery));
    const versions = await db.typedQuery(
      `select p.name, count(distinct v.version)::int as n, min(v.version)::float8 as version
         from screener_partitions p join market_versions v on v.scope !~ '[:*]'
          and (p.lower is null or v.scope >= p.lower) and (p.upper is null or v.scope < p.upper)
        where v.version > p.built_version group by p.name`,
    );
    expect(versions.rows.map((r) => r.n)).toEqual(partitions.map(() => 1));
    expect(new Set(versions.rows.map((r) => r.version)).size).toBe(partitions.length);
    logged.length = 0;
    expect(await refreshMovedPartitions(db, log)).toBe(partitions.length);
    expect(await movedPartitions(db.typedQuery)).toEqual([]);
  }, 120_000);

  it.skipIf(!testDatabaseUrl())(
    "a swap waits for the screens under way; when they hold on it gives up, leaves nothing behind, and the next pass swaps",
    async () => {
      const [partition] = await readPartitions(db.typedQuery);
      const url = new URL(testDatabaseUrl()!);
      url.pathname = `/${(await db.typedQuery("select current_database() as name")).rows[0]!.name as string}`;
      const reader = new pg.Client({ connectionString: url.toString() });
      await reader.connect();
      try {
        await reader.query("begin");
        await reader.query("select count(*) from screener_contracts");
        const started = Date.now();
        expect(await refreshPartition(db, partition!)).toBeNull();
        expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
        expect((await readPartitions(db.typedQuery)).map((p) => p.name)).toContain(partition!.name);
        const { rows } = await db.typedQuery(
          "select count(*)::int as n from pg_class where relname ~ '^screener_contracts_[0-9]+$' and relkind = 'r' and not relispartition",
        );
        expect(rows[0]!.n).toBe(0);
        await reader.query("commit");
        expect(await refreshPartition(db, partition!)).not.toBeNull();
      } finally {
        await reader.end();
      }
    },
    60_000,
  );
});
