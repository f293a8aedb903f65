import { asc, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { optionQuotes } from "../db/schema";
import type { MarketSnapshot } from "./snapshot-cache";
import { snapshotQuery } from "./snapshot";
import { underlyingQuery } from "./underlyings";

const CACHE_TTL_SECONDS = 86_400;

/** An underlying's listed expirations; `exists` false for a symbol outside the universe. */
export interface ExpirationSchedule {
  exists: boolean;
  /** YYYY-MM-DD, distinct, chronological. */
  expirations: string[];
}

function expirationsQuery(db: Database, symbol: string) {
  return db
    .selectDistinct({ expiration: optionQuotes.expiration })
    .from(optionQuotes)
    .where(eq(optionQuotes.underlying, symbol))
    .orderBy(asc(optionQuotes.expiration));
}

const cacheKey = (version: number, symbol: string) => `expirations:v${version}:${symbol}`;

/**
 * The schedule, cached in KV per market snapshot version (a new load has a new version, so a stale
 * entry is never read). With the snapshot known at the edge a warm request makes no database round
 * trip; otherwise one: the snapshot (when unknown), the underlying and its expirations in one batch.
 */
export async function expirationSchedule(
  db: Database,
  cache: KVNamespace,
  symbol: string,
  known: MarketSnapshot | null,
  defer: (work: Promise<unknown>) => void,
): Promise<ExpirationSchedule & { snapshot: MarketSnapshot; read: boolean }> {
  if (known) {
    const cached = await cache.get<ExpirationSchedule>(cacheKey(known.version, symbol), "json");
    if (cached) return { ...cached, snapshot: known, read: false };
  }
  const [snapshotRows, underlying, rows] = await db.batch([snapshotQuery(db), underlyingQuery(db, symbol), expirationsQuery(db, symbol)]);
  const snapshot = { version: snapshotRows[0]?.version ?? 0, asOf: snapshotRows[0]?.asOf ?? null };
  const schedule = { exists: underlying.length > 0, expirations: rows.map((r) => r.expiration) };
  defer(cache.put(cacheKey(snapshot.version, symbol), JSON.stringify(schedule), { expirationTtl: CACHE_TTL_SECONDS }));
  return { ...schedule, snapshot, read: true };
}
