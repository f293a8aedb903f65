import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { zstdCompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeMetadata, encodeRecord, type DbnRecord } from "../../ingest/dbn";
import { ingestorArgs } from "../../bench/ingestor-process";
import { mergeByReceiveTime, readFeedFile, receiveTime } from "../../ingest/sources/opra/feed-files";
import { replayFiles } from "../../ingest/sources/opra/replay";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";
import { cbbo1m, definitionV3, statisticV3, tcbbo } from "./dbn-fixtures";

const upstream = (name: string) => fileURLToPath(new URL(`../fixtures/databento/test_data.${name}.dbn.zst`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "replay-files-"));

/** A file of JSON lines, as the historical API's `encoding=json` writes it; `.zst` compressed when the name says so. */
function jsonLinesFile(name: string, lines: string[]): string {
  const path = join(dir, name);
  const text = lines.join("\n") + "\n";
  writeFileSync(path, name.endsWith(".zst") ? zstdCompressSync(Buffer.from(text)) : text);
  return path;
}

async function records(source: AsyncIterable<unknown>): Promise<DbnRecord[]> {
  const out: DbnRecord[] = [];
  for await (const item of source) out.push(item as DbnRecord);
  return out;
}

describe("feed files", () => {
  it("merges one file per schema into one receive-time order, every record kept", async () => {
    const read = await records(mergeByReceiveTime([readFeedFile(upstream("cbbo-1s.v3")), readFeedFile(upstream("statistics.v3"))]));
    // Each file's metadata maps its symbols to instrument ids (the statistics file: ESH1): a mapping record ahead of the records.
    expect(read.filter((r) => r.kind === "symbol-mapping").map((r) => r.stypeOutSymbol)).toEqual(["ESH1"]);
    const merged = read.filter((r) => r.kind !== "symbol-mapping");
    expect(merged.map((r) => r.kind).sort()).toEqual(["cbbo", "cbbo", "statistic", "statistic"]);
    const times = merged.map(receiveTime);
    expect(times).toEqual([...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it("reads JSON lines plain and zstd-compressed", async () => {
    const plain = await records(readFeedFile(jsonLinesFile("trades.json", [tcbbo().json])));
    const compressed = await records(readFeedFile(jsonLinesFile("trades.jsonl.zst", [tcbbo().json])));
    expect(plain).toEqual([tcbbo().record]);
    expect(compressed).toEqual([tcbbo().record]);
  });
});

describe("replaying files through the pipeline", () => {
  let db: SqlBackend;
  beforeAll(async () => {
    db = await ingestDatabase();
    await db.typedQuery(
      `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2025-01-09T21:00:00Z', '2025-01-09', 0.04, 'seed')`,
    );
  }, 60_000);
  afterAll(async () => db.close());

  it("stores a definition, a trade, a minute quote and open interest from their files, and a rerun stores nothing twice", async () => {
    const files = [
      jsonLinesFile("definition.json", [definitionV3().json]),
      jsonLinesFile("statistics.json", [statisticV3().json]),
      jsonLinesFile("cbbo-1m.json", [cbbo1m().json]),
      // A line cut short in the middle of the file: counted and logged, the rest of the file read.
      jsonLinesFile("tcbbo.json", ['{"hd":{"ts_event":"1736519400', tcbbo().json]),
    ];
    const logged: Record<string, unknown>[] = [];
    const options = { feed: "databento-opra", speed: Infinity, log: (f: Record<string, unknown>) => logged.push(f) };
    expect(await replayFiles(db, files, options)).toMatchObject({ records: 4, accepted: 4, skipped: 0, dropped: {}, malformed: 1 });
    expect(logged.filter((l) => l.event === "feed_malformed")).toMatchObject([{ file: files[3], offset: 0 }]);
    const { rows: prints } = await db.typedQuery(`select option_symbol, price, size, side from flow_prints`);
    expect(prints).toEqual([{ option_symbol: "AAPL250117C00150000", price: 2.18, size: 5, side: "ask" }]);
    const { rows: quotes } = await db.typedQuery(`select bid, ask, volume, last, open_interest from option_quotes`);
    expect(quotes).toEqual([{ bid: 2.15, ask: 2.2, volume: 5, last: 2.18, open_interest: 12_345 }]);

    expect(await replayFiles(db, files, options)).toMatchObject({ records: 4, accepted: 0, skipped: 4 });
    expect((await db.typedQuery(`select count(*)::int as n from flow_prints`)).rows[0]!.n).toBe(1);
  });
});

describe("files without definitions, as a user downloads a few symbols' trades", () => {
  /** The fixture trade's contract, as OPRA names it (an OSI symbol) and as flow names it. */
  const OSI = "AAPL  250117C00150000";
  const day = Number(new Date(Number(tcbbo().record.tsRecv / 1_000_000n)).toISOString().slice(0, 10).replace(/-/g, ""));
  const withSymbol = (symbol: string) => tcbbo().json.replace(/}$/, `,"symbol":"${symbol}"}`);
  const dbnFile = (name: string, rawSymbol: string) => {
    const path = join(dir, name);
    const metadata = encodeMetadata({
      dataset: "OPRA.PILLAR",
      schema: "tcbbo",
      start: tcbbo().record.tsRecv,
      end: null,
      stypeIn: "raw_symbol",
      stypeOut: "instrument_id",
      tsOut: false,
      mappings: [{ rawSymbol, intervals: [{ startDate: day, endDate: day + 1, symbol: String(tcbbo().record.instrumentId) }] }],
    });
    writeFileSync(path, Buffer.concat([metadata, encodeRecord(tcbbo().record)]));
    return path;
  };
  const printsIn = async (db: SqlBackend) => (await db.typedQuery(`select option_symbol, price, size from flow_prints`)).rows;
  const options = { feed: "databento-opra", speed: Infinity, log: () => undefined };

  async function freshDatabase(): Promise<SqlBackend> {
    const db = await ingestDatabase();
    await db.typedQuery(
      `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2025-01-09T21:00:00Z', '2025-01-09', 0.04, 'seed')`,
    );
    return db;
  }

  it("stores the prints of JSON lines whose records carry their mapped `symbol`", async () => {
    const db = await freshDatabase();
    try {
      const report = await replayFiles(db, [jsonLinesFile("mapped.tcbbo.json", [withSymbol(OSI)])], options);
      expect(report).toMatchObject({ records: 1, accepted: 1, dropped: {} });
      expect(await printsIn(db)).toEqual([{ option_symbol: "AAPL250117C00150000", price: 2.18, size: 5 }]);
    } finally {
      await db.close();
    }
  });

  it("stores the prints of a DBN file whose metadata maps its instrument ids to raw symbols", async () => {
    const db = await freshDatabase();
    try {
      const report = await replayFiles(db, [dbnFile("mapped.tcbbo.dbn", OSI)], options);
      expect(report).toMatchObject({ records: 2, accepted: 1, dropped: {} });
      expect(await printsIn(db)).toEqual([{ option_symbol: "AAPL250117C00150000", price: 2.18, size: 5 }]);
    } finally {
      await db.close();
    }
  });

  /** `npm run ingest -- --replay FILE` into an embedded database of its own: its exit code and last line. */
  async function ingestCli(file: string): Promise<{ code: number | null; last: Record<string, unknown>; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: join(mkdtempSync(join(tmpdir(), "replay-cli-")), "pglite") };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, ingestorArgs(["--replay", file]), { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    const lines = stdout.trim().split("\n");
    return { code, last: JSON.parse(lines.at(-1)!) as Record<string, unknown>, stderr };
  }

  it("says in the replay's final line what it stored, and exits non-zero, with the reason per dropped record, when it stored nothing", async () => {
    const stored = await ingestCli(jsonLinesFile("cli.tcbbo.json", [withSymbol(OSI)]));
    expect(stored.code).toBe(0);
    expect(stored.last).toMatchObject({ event: "ingest_replayed", accepted: 1, outcome: "stored 1 events (0 already stored)" });

    // A parent symbol (`map_symbols` of a `parent` request) names no contract.
    const nothing = await ingestCli(jsonLinesFile("parent.tcbbo.json", [withSymbol("AAPL.OPT"), withSymbol("AAPL.OPT")]));
    expect(nothing.code).toBe(3);
    expect(nothing.last).toMatchObject({ event: "ingest_replayed", accepted: 0, dropped: { "unknown-instrument": 2 } });
    expect(nothing.last.outcome).toMatch(
      /^stored nothing of 2 records; dropped 2 records \(unknown-instrument 2: no definition or symbol mapping/,
    );
    expect(nothing.stderr).toMatch(/stored nothing/);
  }, 120_000);
});
