import { sha256Hex } from "../crypto/sha256";
import type { Database } from "../db/client";
import type { Derived, MarketSnapshot } from "../market/snapshot";
import { LruMemory } from "./lru-memory";
import type { EdgeScope } from "./scope";
import { singleFlight } from "./single-flight";
import { rememberSnapshot } from "./snapshot-version";

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

/**
 * A value that depends only on the loaded market (expiration schedules, IV context, rankings,
 * GEX, calendars): warm, read from this isolate's memory or else KV under `known`, the snapshot the
 * edge knows (`cachedSnapshot`), with no database round trip; cold, computed by `compute` — which
 * reads through `readWithSnapshot`, one round trip — once per isolate however many requests miss
 * together (`singleFlight`), then stored for every edge.
 */
export async function snapshotDerived<T>(
  scope: EdgeScope,
  known: MarketSnapshot | null,
  name: string,
  compute: (db: Database) => Promise<Derived<T>>,
): Promise<Derived<T>> {
  if (known) {
    const key = cacheKey(name, known.version);
    const memory = memoryOf(scope.cache);
    const remembered = memory.get<T>(key);
    if (remembered !== undefined) return { snapshot: known, value: remembered };
    const text = await scope.cache.get(key, "text");
    if (text !== null) {
      const { value } = JSON.parse(text) as { value: T };
      memory.set(key, value, text.length);
      return { snapshot: known, value };
    }
  }
  const flightKey = known ? cacheKey(name, known.version) : `${name}@?`;
  const derived = await singleFlight(flightKey, () => compute(scope.market), {
    waitUntil: (work) => scope.waitUntil(work),
    keep: (fresh) => {
      const key = cacheKey(name, fresh.snapshot.version);
      const text = JSON.stringify({ value: fresh.value });
      memoryOf(scope.cache).set(key, fresh.value, text.length);
      return scope.cache.put(key, text, { expirationTtl: CACHE_TTL_SECONDS });
    },
  });
  if (derived.snapshot.version !== known?.version) rememberSnapshot(scope, derived.snapshot);
  return derived;
}
