import { marketState, marketVersions, optionQuotes, screenerContracts, screenerPartitions } from "../../src/db/schema";
import { bulkInsert } from "../db/bulk-insert";
import type { IngestDatabase, TypedQuery } from "../db/database";
import { marketSession } from "../db/market-session";
import { queryRows, selectList, selectRows, type Row, type Selected, sqlNames } from "../db/rows";
import { earlyCloseDays, insertScreenerRows } from "./screener-rows";

const [TABLE, C] = sqlNames(screenerContracts);
const [PARTITIONS, P] = sqlNames(screenerPartitions);
const [MARKET_STATE, S] = sqlNames(marketState);
const [MARKET_VERSIONS, V] = sqlNames(marketVersions);
const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);

/**
 * Contracts a partition holds at about most (whole underlyings; one may hold more): a partition is
 * rebuilt in about a second at full size, and its swap waits at most for the screens under way.
 */
export const PARTITION_CONTRACTS = 50_000;

/** How long a swap waits for the screens under way before it gives up (to try again): readers queue behind it meanwhile. */
const SWAP_LOCK_TIMEOUT = "2s";

/** Memory a partition's build sorts in (its rows sorted by side, expiration and delta, its strikes ranked). */
const BUILD_WORK_MEM = "128MB";

/**
 * The statistics a partition's ANALYZE gathers per column (3,000 sampled rows): enough for a
 * screen's plan over 50,000 rows, at a tenth of the default's cost (0.12 s against 1.6 s at full size).
 */
const STATISTICS_TARGET = 10;

/** Whole underlyings in [lower, upper) of the symbol order; null: no bound. */
export type SymbolRange = Row<typeof screenerPartitions, "lower" | "upper">;

/** A partition: its table's name, its range, and the newest scope version committed before its rows were derived. */
export type ScreenerPartition = Selected<typeof screenerPartitions, "name" | "lower" | "upper" | "builtVersion">;

/** A partition filled and indexed beside the table, ready to be swapped in. */
interface BuiltPartition extends SymbolRange {
  name: string;
  rows: number;
  /** Whole milliseconds each step of its build took: where a slow minute of the follower's went. */
  steps: BuildSteps;
}

/** A build's steps: its rows' statement, VACUUM with the key and indexes, ANALYZE with the count. */
export interface BuildSteps {
  fillMs: number;
  indexMs: number;
  analyzeMs: number;
}

const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;
const bound = (value: string | null, none: string) => (value === null ? none : `(${literal(value)})`);

/** A partition's row of `screener_partitions`. */
const PARTITION_KEYS = ["name", "lower", "upper", "builtVersion"] as const;

export async function readPartitions(query: TypedQuery): Promise<ScreenerPartition[]> {
  return selectRows(query, screenerPartitions, PARTITION_KEYS, `order by ${P.lower} nulls first`);
}

/** Where the partitions after the first begin, in symbol order (none before the first build). */
export async function partitionCuts(query: TypedQuery): Promise<string[]> {
  const rows = await selectRows(query, screenerPartitions, ["lower"], `where ${P.lower} is not null order by ${P.lower}`);
  return rows.flatMap((r) => r.lower ?? []);
}

/** The market cut into ranges of whole underlyings of about `PARTITION_CONTRACTS` contracts each, covering every symbol. */
export async function planRanges(query: TypedQuery, size = PARTITION_CONTRACTS): Promise<SymbolRange[]> {
  const rows = await queryRows<Selected<typeof optionQuotes, "underlying"> & { n: number }>(
    query,
    `select ${selectList(optionQuotes, ["underlying"])}, count(*)::int as n from ${OPTION_QUOTES} group by ${Q.underlying} order by ${Q.underlying}`,
  );
  const cuts: string[] = [];
  let held = 0;
  for (const { underlying, n } of rows) {
    if (held >= size) {
      cuts.push(underlying);
      held = 0;
    }
    held += n;
  }
  return [null, ...cuts].map((lower, i) => ({ lower, upper: cuts[i] ?? null }));
}

/** The newest scope version every change up to which has committed. */
export async function committedScopeVersion(query: TypedQuery): Promise<number> {
  const [state] = await selectRows(query, marketState, ["scopeVersion"], `where ${S.id} = 1`);
  return state?.scopeVersion ?? 0;
}

/** The secondary indexes of the table (its key is added apart), as statements for a partition of it. */
async function indexStatements(query: TypedQuery, partition: string): Promise<string[]> {
  const rows = await queryRows<{ definition: string }>(
    query,
    `select i.indexdef as definition from pg_indexes i
      where i.schemaname = 'public' and i.tablename = $1
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname)
      order by i.indexname`,
    [TABLE],
  );
  return rows.map(({ definition }) => {
    const onPartition = definition.replace(
      new RegExp(`^CREATE (UNIQUE )?INDEX \\S+ ON (ONLY )?public\\.${TABLE} `),
      `CREATE $1INDEX ON public.${partition} `,
    );
    if (onPartition === definition) throw new Error(`unexpected index definition: ${definition}`);
    return onPartition;
  });
}

/**
 * The rows of `range` in a new table beside the screener's: its range as a check (so attaching it
 * scans nothing), filled in one statement, vacuumed (a new table has no visibility map, and without
 * one no index-only scan is chosen), then keyed and indexed once (far cheaper than maintaining
 * indexes row by row) and analysed.
 */
async function buildPartition(db: IngestDatabase, range: SymbolRange): Promise<BuiltPartition> {
  const started = performance.now();
  const [next] = await queryRows<{ n: string }>(db.typedQuery, `select nextval('screener_partition_seq')::text as n`);
  const name = `${TABLE}_${next!.n}`;
  const checks = [
    range.lower === null ? null : `${C.symbol} >= ${literal(range.lower)}`,
    range.upper === null ? null : `${C.symbol} < ${literal(range.upper)}`,
  ].filter((c) => c !== null);
  await db.typedQuery(`create table ${name} (like ${TABLE} including defaults including constraints)`);
  if (checks.length > 0) await db.typedQuery(`alter table ${name} add constraint ${name}_range check (${checks.join(" and ")})`);
  await db.typedTransaction(async (query) => {
    // Its sorts in memory; no JIT, whose compilation would cost more than a partition's rows; and
    // joins by hash: a misjudged join (the underlyings' figures, an expiration's) would otherwise
    // turn a lookup by contract into a nested loop of 50,000 index scans.
    await query(`set local work_mem = '${BUILD_WORK_MEM}'`);
    await query(`set local jit = off`);
    await query(`set local enable_nestloop = off`);
    await query(`set local enable_mergejoin = off`);
    // Its time as the drivers read a timestamptz (a Date), handed back as the statement's parameter.
    const [market] = await queryRows<Selected<typeof marketState, "sessionDate" | "riskFreeRate"> & { asOf: Date }>(
      query,
      `select ${selectList(marketState, ["sessionDate", "riskFreeRate"])}, ${S.asOf} as "asOf" from ${MARKET_STATE} where ${S.id} = 1`,
    );
    const { sessionDate, asOf, riskFreeRate } = market!;
    await query(insertScreenerRows(name), [earlyCloseDays(sessionDate), range.lower, range.upper, sessionDate, asOf, riskFreeRate]);
  });
  const filled = performance.now();
  // Vacuumed before it is indexed: the same visibility map, without a pass over five indexes (15 ms against 90 at full size).
  await db.typedQuery(`vacuum ${name}`);
  await db.typedQuery(`alter table ${name} add constraint ${name}_pkey primary key (${C.symbol}, ${C.optionKey})`);
  for (const statement of await indexStatements(db.typedQuery, name)) await db.typedQuery(statement);
  const indexed = performance.now();
  await db.typedTransaction(async (query) => {
    await query(`set local default_statistics_target = ${STATISTICS_TARGET}`);
    await query(`analyze ${name}`);
  });
  const [counted] = await queryRows<{ n: number }>(db.typedQuery, `select count(*)::int as n from ${name}`);
  const ms = (from: number, to: number) => Math.round(to - from);
  const steps = { fillMs: ms(started, filled), indexMs: ms(filled, indexed), analyzeMs: ms(indexed, performance.now()) };
  return { name, lower: range.lower, upper: range.upper, rows: counted!.n, steps };
}

/** Tables a build cut short left beside the screener's (not one of its partitions). */
export async function dropLeftovers(query: TypedQuery): Promise<void> {
  const rows = await queryRows<{ name: string }>(
    query,
    `select c.relname as name from pg_class c join pg_namespace s on s.oid = c.relnamespace
      where s.nspname = 'public' and c.relkind = 'r' and c.relname ~ $1
        and not exists (select 1 from pg_inherits i where i.inhrelid = c.oid)`,
    [`^${TABLE}_[0-9]+$`],
  );
  for (const { name } of rows) await query(`drop table if exists ${name}`);
}

/**
 * Swaps built partitions in for the ones they replace, in one transaction: a screen sees every
 * replaced partition's old rows or every new one's, never a mix (DETACH waits for the screens under
 * way and holds new ones behind it for the moment of the swap). `false` when another swap has
 * replaced one of `old` meanwhile (the caller builds again) or the screens did not let go in time.
 */
async function swapPartitions(db: IngestDatabase, old: ScreenerPartition[], built: BuiltPartition[], version: number): Promise<boolean> {
  let swapped = false;
  try {
    swapped = await db.typedTransaction(async (query) => {
      await query(`set local lock_timeout = '${SWAP_LOCK_TIMEOUT}'`);
      const still = await query(`select ${P.name} from ${PARTITIONS} where ${P.name} = any($1::text[]) for update`, [
        old.map((p) => p.name),
      ]);
      if (still.rows.length !== old.length) return false;
      for (const p of old) {
        await query(`alter table ${TABLE} detach partition ${p.name}`);
        await query(`drop table ${p.name}`);
      }
      for (const p of built)
        await query(
          `alter table ${TABLE} attach partition ${p.name} for values from ${bound(p.lower, "(MINVALUE)")} to ${bound(p.upper, "(MAXVALUE)")}`,
        );
      await query(`delete from ${PARTITIONS} where ${P.name} = any($1::text[])`, [old.map((p) => p.name)]);
      await bulkInsert(
        query,
        screenerPartitions,
        built.map((p) => ({ name: p.name, lower: p.lower, upper: p.upper, builtVersion: version })),
      );
      return true;
    });
  } catch (error) {
    // 55P03: the screens under way did not let go within the lock timeout.
    if ((error as { code?: string }).code !== "55P03") throw error;
  } finally {
    if (!swapped) for (const p of built) await db.typedQuery(`drop table if exists ${p.name}`);
  }
  return swapped;
}

/**
 * Rebuilds the whole screener, cut afresh into partitions of the market's size (after the seed, a
 * loaded file or a repair): each partition built beside the table, then all swapped in at once.
 * Returns the rows written. The 30-session baselines are the caller's (`writeBaselines`).
 */
export async function rebuildAllPartitions(db: IngestDatabase, size = PARTITION_CONTRACTS): Promise<number> {
  const session = await marketSession(db.typedQuery);
  if (!session) return 0;
  await dropLeftovers(db.typedQuery);
  const version = await committedScopeVersion(db.typedQuery);
  const old = await readPartitions(db.typedQuery);
  const built: BuiltPartition[] = [];
  for (const range of await planRanges(db.typedQuery, size)) built.push(await buildPartition(db, range));
  if (!(await swapPartitions(db, old, built, version))) throw new Error("the screener's partitions changed during the rebuild");
  return built.reduce((sum, p) => sum + p.rows, 0);
}

/**
 * Rebuilds one partition from the stored market and swaps it in. The scope version is read first,
 * so the rows hold at least every change up to it (a change after it only rebuilds once more).
 */
export async function refreshPartition(
  db: IngestDatabase,
  partition: ScreenerPartition,
  swapInTurn: <T>(swap: () => Promise<T>) => Promise<T> = (swap) => swap(),
): Promise<BuiltPartition | null> {
  const session = await marketSession(db.typedQuery);
  if (!session) return null;
  const version = await committedScopeVersion(db.typedQuery);
  const built = await buildPartition(db, partition);
  return (await swapInTurn(() => swapPartitions(db, [partition], [built], version))) ? built : null;
}

/**
 * The partitions whose underlyings' quotes have moved since they were built: an underlying's scope
 * (not its traded scope: trades update volume and last price every second, and the screener takes
 * them with the next minute's quotes) with a newer version than the partition's. The longest stale
 * first: a follower behind the market finishes a minute's partitions before it starts on the next
 * minute's, rather than serving the first symbols twice while the last wait.
 */
export async function movedPartitions(query: TypedQuery): Promise<ScreenerPartition[]> {
  return queryRows<ScreenerPartition>(
    query,
    `select ${selectList(screenerPartitions, PARTITION_KEYS, "p")} from ${PARTITIONS} p
      where exists (select 1 from ${MARKET_VERSIONS} v
        where v.${V.version} > p.${P.builtVersion} and v.${V.scope} !~ '[:*]'
          and (p.${P.lower} is null or v.${V.scope} >= p.${P.lower}) and (p.${P.upper} is null or v.${V.scope} < p.${P.upper}))
      order by p.${P.builtVersion}, p.${P.lower} nulls first`,
  );
}
