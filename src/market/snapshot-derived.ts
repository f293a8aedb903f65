import type { Context } from "hono";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { AppEnv } from "../app-env";
import { sha256Hex } from "../crypto/sha256";
import type { Database } from "../db/client";
import { marketDatabase } from "../db/for-request";
import { LruMemory } from "./lru-memory";
import { rememberSnapshot, type MarketSnapshot } from "./snapshot-cache";
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

/** A computation under way in this isolate: plain data, set once it settles, that any request may read. */
interface Flight<T> {
  outcome?: { ok: true; derived: Derived<T> } | { ok: false; error: unknown };
}

/** Computations under way in this isolate, by cache key (or `name@?` while the snapshot is unknown). */
const inFlight = new Map<string, Flight<unknown>>();

/** How often a request waiting on another's computation looks at it, and how long before it computes for itself. */
const FOLLOWER_POLL_MS = 5;
const FOLLOWER_MAX_WAIT_MS = 10_000;

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
 * GEX, calendars): warm, read from this isolate's memory or else KV under `known`, the snapshot the
 * edge knows (`cachedSnapshot`), with no database round trip; cold, computed by `compute` — which reads through `readWithSnapshot`, one round
 * trip — once per isolate however many requests miss together, then stored for every edge.
 *
 * The first request's computation is registered with its `waitUntil`, so it completes even when
 * that client goes away. The others never await that request's promise: workerd cancels the
 * continuation of a promise whose creating request has ended, and counts a request that waits on
 * nothing of its own as hung (a 500 under concurrent misses). They wait on their own timer for the
 * flight's plain outcome instead, and compute for themselves if it never comes. Values are shared
 * between requests: callers must not modify them.
 */
export async function snapshotDerived<T>(
  c: Context<AppEnv>,
  known: MarketSnapshot | null,
  name: string,
  compute: (db: Database) => Promise<Derived<T>>,
): Promise<Derived<T>> {
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
  const other = inFlight.get(flightKey) as Flight<T> | undefined;
  const derived = (other && (await outcomeOf(other))) ?? (await lead(c, name, flightKey, compute));
  if (derived.snapshot.version !== known?.version) rememberSnapshot(c, derived.snapshot);
  return derived;
}

/** Runs a computation for every request of this isolate that misses it meanwhile, and stores its value. */
function lead<T>(c: Context<AppEnv>, name: string, flightKey: string, compute: (db: Database) => Promise<Derived<T>>): Promise<Derived<T>> {
  const flight: Flight<T> = {};
  inFlight.set(flightKey, flight);
  const computed = compute(marketDatabase(c));
  const stored = computed
    .then(
      (derived) => {
        flight.outcome = { ok: true, derived };
        const key = cacheKey(name, derived.snapshot.version);
        const text = JSON.stringify({ value: derived.value });
        memoryOf(c.env.MARKET_CACHE).set(key, derived.value, text.length);
        return c.env.MARKET_CACHE.put(key, text, { expirationTtl: CACHE_TTL_SECONDS });
      },
      // A failed computation is reported to every request waiting on it.
      (error: unknown) => void (flight.outcome = { ok: false, error }),
    )
    // A failed store only costs a recomputation.
    .catch(() => undefined)
    .finally(() => {
      if (inFlight.get(flightKey) === flight) inFlight.delete(flightKey);
    });
  c.executionCtx.waitUntil(stored);
  return computed;
}

/** Another request's computation, awaited on this request's own timer; undefined if it takes too long. */
async function outcomeOf<T>(flight: Flight<T>): Promise<Derived<T> | undefined> {
  for (let waited = 0; !flight.outcome && waited < FOLLOWER_MAX_WAIT_MS; waited += FOLLOWER_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOWER_POLL_MS));
  }
  if (!flight.outcome) return undefined;
  if (!flight.outcome.ok) throw flight.outcome.error;
  return flight.outcome.derived;
}
