import { gt, inArray, max, sql } from "drizzle-orm";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { marketState, marketVersions } from "../db/schema";

/**
 * The versions an edge keys market caches by: the load's (`market_state.version`: the whole
 * market may have changed), the newest scope version it has read every change up to, and each
 * scope's (an underlying, an option root, `*` for market-wide views) that changed since the load.
 */
export interface MarketVersions {
  base: number;
  seq: number;
  scopes: Record<string, number>;
}

/**
 * What a value derived from the market was read under. `version` names it in cache keys (the
 * load's version and its scopes' newest); `asOf` is its data's time; `seen`, on a value just read,
 * is what the read learnt of every scope's version, for the edge to keep.
 */
export interface MarketSnapshot {
  version: string;
  asOf: string | null;
  seen?: VersionsSeen;
}

/** What one read saw of the versions: the load's, and every scope change in (`since`, `seq`]. */
export interface VersionsSeen {
  base: number;
  since: number;
  seq: number;
  changed: [scope: string, version: number][];
}

/** A value computed from one market snapshot, with that snapshot. */
export interface Derived<T> {
  snapshot: MarketSnapshot;
  value: T;
}

/** A cold read: the database, the scopes its value depends on and the newest scope version the edge knows (-1: none). */
export interface MarketRead {
  db: Database;
  scopes: readonly string[];
  since: number;
}

/** The cache version of a value over `scopes`: one scope version sequence, so the newest of them moves on any change. */
export function versionOf(versions: Pick<MarketVersions, "base" | "scopes">, scopes: readonly string[]): string {
  return `${versions.base}.${Math.max(0, ...scopes.map((s) => versions.scopes[s] ?? 0))}`;
}

function scopedMax<T>(db: Database, column: typeof marketVersions.version | typeof marketVersions.asOf, scopes: readonly string[]) {
  return sql<T>`(${db
    .select({ v: max(column) })
    .from(marketVersions)
    .where(inArray(marketVersions.scope, [...scopes]))})`;
}

export function marketStateQuery(db: Database, scopes: readonly string[]) {
  return db
    .select({
      base: marketState.version,
      seq: marketState.scopeVersion,
      asOf: sql<string | null>`greatest(${marketState.asOf}, ${scopedMax(db, marketVersions.asOf, scopes)})`,
      scoped: sql<number>`coalesce(${scopedMax(db, marketVersions.version, scopes)}, 0)`.mapWith(Number),
    })
    .from(marketState)
    .limit(1);
}

/** Every scope version after `since`: with the state read in the same transaction, all that changed up to its `seq`. */
export function versionChangesQuery(db: Database, since: number) {
  return db
    .select({ scope: marketVersions.scope, version: marketVersions.version })
    .from(marketVersions)
    .where(gt(marketVersions.version, since));
}

type StateRow = Awaited<ReturnType<typeof marketStateQuery>>[number];
type ChangeRow = Awaited<ReturnType<typeof versionChangesQuery>>[number];

/** The versions and snapshot a state row and the changes read with it make. */
export function snapshotFrom(state: StateRow | undefined, since: number, changes: ChangeRow[]): MarketSnapshot & { seen: VersionsSeen } {
  const base = state?.base ?? 0;
  return {
    version: `${base}.${state?.scoped ?? 0}`,
    asOf: state?.asOf ?? null,
    seen: { base, since, seq: state?.seq ?? 0, changed: changes.map((c) => [c.scope, Number(c.version)]) },
  };
}

/**
 * Runs the caller's statements, the snapshot read and the scope changes since `read.since` in one
 * database round trip (one transaction), so what is computed from them is keyed by the snapshot
 * they were read under and the edge learns every version that moved on the way.
 */
export async function readWithSnapshot<T extends readonly BatchItem<"pg">[]>(
  read: MarketRead,
  statements: [...T],
): Promise<{ snapshot: MarketSnapshot; rows: BatchResponse<T> }> {
  const { db } = read;
  const [stateRows, changeRows, ...rows] = await db.batch([
    marketStateQuery(db, read.scopes),
    versionChangesQuery(db, read.since),
    ...statements,
  ] as [BatchItem<"pg">, ...BatchItem<"pg">[]]);
  return {
    snapshot: snapshotFrom((stateRows as StateRow[])[0], read.since, changeRows as ChangeRow[]),
    rows: rows as BatchResponse<T>,
  };
}
