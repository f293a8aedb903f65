import { flowPartitionsSql } from "../../src/market/flow-partitions";
import { DEFAULT_RISK_FREE_RATE, marketClock } from "../../src/domain/market-clock";
import { previousSessions, sessionOnOrBefore, todayInNewYork } from "../../src/domain/calendar";
import { Random } from "./random";
import { emptyRows, TABLES, type TableName, type UnderlyingRows } from "./rows";
import { generateUnderlying, IV_SESSIONS, type MarketContext, type SizeSpec } from "./underlying";
import { buildUniverse, OUT_OF_COVERAGE } from "./universe";
import type { PgTable } from "drizzle-orm/pg-core";
import { bulkInsert, type InsertRow } from "../../ingest/db/bulk-insert";
import { withIndexesDeferred } from "./deferred-indexes";
import { rebuildScreener } from "../../ingest/screener/rebuild";
import type { SqlBackend } from "../../ingest/db/sql-backend";

export type MarketSize = "test" | "demo" | "full";

const SIZES: Record<MarketSize, SizeSpec> = {
  // The test market uses NDX so that real SPX data loaded by tests does not collide with it.
  test: { underlyings: 12, density: 0.6, printsPerActivity: 12, index: "NDX", exchangeListings: false },
  demo: { underlyings: 40, density: 1, printsPerActivity: 60, index: "SPX", exchangeListings: false },
  full: { underlyings: 5000, density: 4.6, printsPerActivity: 110, index: "SPX", exchangeListings: true },
};

export interface SeedOptions {
  size: MarketSize;
  seed: number;
  /** Session date of the snapshot (YYYY-MM-DD); default: the latest weekday in New York. */
  sessionDate?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface SeedReport {
  sessionDate: string;
  underlyings: number;
  contracts: number;
  contractHistoryRows: number;
  flowPrints: number;
}

const HISTORY_SESSIONS = 30;
/** Sessions of flow prints: always at least those of the 7 days before the session (the API's retention). */
const FLOW_SESSIONS = 7;

/** Tables whose secondary indexes are built after the load rather than maintained during it. */
const BULK_TABLES = ["option_quotes", "option_daily", "flow_prints", "equity_daily", "iv_daily"];

/** Every table of the market data; a seed replaces them all. */
const MARKET_TABLES = [
  "market_state",
  "underlyings",
  "equity_quotes",
  "equity_daily",
  "option_quotes",
  "option_daily",
  "iv_daily",
  "earnings",
  "dividends",
  "flow_prints",
  "screener_contracts",
  "feed_positions",
  "open_interest_staged",
  "market_versions",
];
const TRUNCATE_MARKET = `truncate ${MARKET_TABLES.join(", ")}`;

/** Whether the database holds market data of any kind: a seed, or a loaded quote table or trade file. */
export async function holdsMarketData(backend: SqlBackend): Promise<boolean> {
  const probes = MARKET_TABLES.map((table) => `exists (select 1 from ${table})`).join(" or ");
  const { rows } = await backend.typedQuery(`select (${probes}) as held`);
  return rows[0]?.held === true;
}

const FLUSH_ROWS = 150_000;

/**
 * Buffers generated rows and writes them in table order (parents first). One write is kept in
 * flight while the next batch is generated, so the generator and the database overlap.
 */
class MarketWriter {
  #pending = emptyRows();
  #size = 0;
  #inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly backend: SqlBackend) {}

  async add(rows: UnderlyingRows): Promise<void> {
    for (const name of Object.keys(TABLES) as TableName[]) {
      const target: unknown[] = this.#pending[name];
      for (const row of rows[name]) target.push(row);
      this.#size += rows[name].length;
    }
    if (this.#size >= FLUSH_ROWS) await this.#flush();
  }

  async finish(): Promise<void> {
    await this.#flush();
    await this.#inFlight;
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = emptyRows();
    this.#size = 0;
    await this.#inFlight;
    this.#inFlight = (async () => {
      for (const name of Object.keys(TABLES) as TableName[]) {
        // Each kind of row is typed for its table (UnderlyingRows); TypeScript cannot correlate the two by key.
        await bulkInsert(this.backend.typedQuery, TABLES[name] as PgTable, batch[name] as InsertRow<PgTable>[]);
      }
    })();
  }
}

/**
 * Generates a complete, internally consistent market for `options.size` and replaces the market
 * tables with it. Deterministic for a given seed and session date.
 */
export async function seedMarket(backend: SqlBackend, options: SeedOptions): Promise<SeedReport> {
  const spec = SIZES[options.size];
  const sessionDate = options.sessionDate ?? sessionOnOrBefore(todayInNewYork());
  const root = new Random(options.seed);
  const clock = marketClock(sessionDate);
  const dailySessions = previousSessions(sessionDate, IV_SESSIONS);
  const ctx: MarketContext = {
    spec,
    clock,
    dailySessions,
    historySessions: dailySessions.slice(-HISTORY_SESSIONS),
    flowSessions: dailySessions.slice(-FLOW_SESSIONS),
    asOf: clock.asOf.toISOString(),
  };
  const universe = [...buildUniverse(spec.underlyings, root.fork("universe"), spec.index), ...OUT_OF_COVERAGE];
  const report: SeedReport = { sessionDate, underlyings: 0, contracts: 0, contractHistoryRows: 0, flowPrints: 0 };

  await backend.exec(TRUNCATE_MARKET);
  await backend.exec(flowPartitionsSql(ctx.flowSessions));
  await withIndexesDeferred(backend, BULK_TABLES, async () => {
    const writer = new MarketWriter(backend);
    for (const u of universe) {
      const rows = generateUnderlying(u, ctx, root.fork(`u:${u.symbol}`));
      report.underlyings++;
      report.contracts += rows.options.length;
      report.contractHistoryRows += rows.optionDaily.length;
      report.flowPrints += rows.flow.length;
      await writer.add(rows);
      options.onProgress?.(report.underlyings, universe.length);
    }
    await writer.finish();
  });
  await backend.typedQuery(
    "insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, $1, $2, $3, $4, $5)",
    [Date.now(), ctx.asOf, sessionDate, DEFAULT_RISK_FREE_RATE, `synthetic:${options.size}:seed=${options.seed}`],
  );
  await rebuildScreener(backend);
  // VACUUM too: a bulk-loaded table has no visibility map, so without it no index-only scan is
  // chosen (the capped flow count then walks 1.3M index entries through a bitmap instead of 10,000).
  await backend.exec("vacuum analyze");
  return report;
}
