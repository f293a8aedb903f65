import type { Context } from "hono";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { AppEnv } from "../app-env";
import { sha256Hex } from "../crypto/sha256";
import type { Database } from "../db/client";
import { marketDatabase } from "../db/for-request";
import { LruMemory } from "./lru-memory";
import { cachedSnapshot, rememberSnapshot, type MarketSnapshot } from "./snapshot-cache";
import { snapshotQuery } from "./snapshot";

/** A value computed from one market snapshot, with that snapshot. */
export interface Derived<T> {
  snapshot: MarketSnapshot;
  value: T;
}

/** Entries outlive any realistic time between loads; a new load changes the key, so none is ever stale. */
const CACHE_TTL_SECONDS = 86_400;

/** A cache name for parameters of unbounded size: the route's name and a digest of its normalised parameters. */
export async function parameterKey(name: string, parameters: unknown): Promise<string> {
  return `${name}:${await sha256Hex(JSON.stringify(parameters))}`;
}

const cacheKey = (name: string, version: number) => `${name}:v${version}`;

/** Keeps the isolate (128 MB) well clear of its limit. */
const MEMORY_BUDGET_CHARS = 8_000_000;

/**
 * This isolate's copy of what each market cache namespace holds, values and rendered responses
 * under one budget (a test may hand the Worker another namespace, which must then look empty).
 */
const memories = new WeakMap<KVNamespace, LruMemory>();

export function memoryOf(cache: KVNamespace): LruMemory {
  let memory = memories.get(cache);
  if (!memory) memories.set(cache, (memory = new LruMemory(MEMORY_BUDGET_CHARS)));
  return memory;
}

/** Computations under way in this isolate, by cache key (or `name@?` while the snapshot is unknown). */
const inFlight = new Map<string, Promise<Derived<unknown>>>();

/**
 * Runs the caller's statements and the snapshot read in one database round trip, so what is
 * computed from them is keyed by the snapshot they were read under.
 */
export async function readWithSnapshot<T extends readonly BatchItem<"pg">[]>(
  db: Database,
  statements: [...T],
): Promise<{ snapshot: MarketSnapshot; rows: BatchResponse<T> }> {
  const [snapshotRows, ...rows] = await db.batch([snapshotQuery(db), ...statements] as [BatchItem<"pg">, ...BatchItem<"pg">[]]);
  const [row] = snapshotRows as Awaited<ReturnType<typeof snapshotQuery>>;
  return { snapshot: { version: row?.version ?? 0, asOf: row?.asOf ?? null }, rows: rows as BatchResponse<T> };
}

/**
 * A value that depends only on the loaded market (expiration schedules, IV context, rankings,
 * GEX, calendars): warm, read from this isolate's memory or else KV under the snapshot version the
 * edge knows, with no database round trip; cold, computed by `compute` — which reads through `readWithSnapshot`, one round
 * trip — once per isolate however many requests miss together, then stored for every edge.
 *
 * The first request's computation is registered with its `waitUntil`, so it completes even when
 * that client goes away and the requests waiting on it are not left without an answer. Values are
 * shared between requests: callers must not modify them.
 */
export async function snapshotDerived<T>(
  c: Context<AppEnv>,
  name: string,
  compute: (db: Database) => Promise<Derived<T>>,
): Promise<Derived<T>> {
  const known = await cachedSnapshot(c);
  if (known) {
    const key = cacheKey(name, known.version);
    const memory = memoryOf(c.env.MARKET_CACHE);
    const remembered = memory.get<T>(key);
    if (remembered !== undefined) return { snapshot: known, value: remembered };
    const text = await c.env.MARKET_CACHE.get(key, "text");
    if (text !== null) {
      const { value } = JSON.parse(text) as { value: T };
      memory.set(key, value, text.length);
      return { snapshot: known, value };
    }
  }
  const flightKey = known ? cacheKey(name, known.version) : `${name}@?`;
  let flight = inFlight.get(flightKey) as Promise<Derived<T>> | undefined;
  if (!flight) {
    flight = compute(marketDatabase(c));
    inFlight.set(flightKey, flight);
    const stored = flight
      .then((derived) => {
        const key = cacheKey(name, derived.snapshot.version);
        const text = JSON.stringify({ value: derived.value });
        memoryOf(c.env.MARKET_CACHE).set(key, derived.value, text.length);
        return c.env.MARKET_CACHE.put(key, text, { expirationTtl: CACHE_TTL_SECONDS });
      })
      // A failed computation is reported to the requests awaiting it; a failed store only costs a recomputation.
      .catch(() => undefined)
      .finally(() => inFlight.delete(flightKey));
    c.executionCtx.waitUntil(stored);
  }
  const derived = await flight;
  if (derived.snapshot.version !== known?.version) rememberSnapshot(c, derived.snapshot);
  return derived;
}
