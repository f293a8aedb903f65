import { sha256Hex } from "../crypto/sha256";
import { versionOf, type Derived, type MarketRead, type MarketVersions } from "../market/snapshot";
import { LruMemory } from "./lru-memory";
import type { EdgeScope } from "./scope";
import { singleFlight } from "./single-flight";
import { rememberVersions } from "./market-versions";

/** Entries outlive any realistic time between loads; a new version changes the key, so none is ever stale. */
const CACHE_TTL_SECONDS = 86_400;

/** A cache name for parameters of unbounded size: the route's name and a digest of its normalised parameters. */
export async function parameterKey(name: string, parameters: unknown): Promise<string> {
  return `${name}:${await sha256Hex(JSON.stringify(parameters))}`;
}

const cacheKey = (name: string, version: string) => `${name}:v${version}`;

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

/** A cached value with its data's time. */
interface Entry<T> {
  value: T;
  asOf: string | null;
}

/**
 * A value that depends only on the market within `scopes` (an underlying's expiration schedule,
 * IV context, GEX; `*` for rankings and calendars): warm, read from this isolate's memory or else
 * KV under the versions the edge knows (`cachedVersions`), with no database round trip; cold,
 * computed by `compute` — which reads through `readWithSnapshot`, one round trip that also brings
 * the versions' changes — once per isolate however many requests miss together (`singleFlight`),
 * then stored for every edge.
 */
export async function snapshotDerived<T>(
  scope: EdgeScope,
  known: { fresh: MarketVersions | null; last: MarketVersions | null },
  name: string,
  scopes: readonly string[],
  compute: (read: MarketRead) => Promise<Derived<T>>,
): Promise<Derived<T>> {
  const memory = memoryOf(scope.cache);
  const version = known.fresh && versionOf(known.fresh, scopes);
  if (version) {
    const key = cacheKey(name, version);
    const remembered = memory.get<Entry<T>>(key);
    if (remembered !== undefined) return { snapshot: { version, asOf: remembered.asOf }, value: remembered.value };
    const text = await scope.cache.get(key, "text");
    if (text !== null) {
      const entry = JSON.parse(text) as Entry<T>;
      memory.set(key, entry, text.length);
      return { snapshot: { version, asOf: entry.asOf }, value: entry.value };
    }
  }
  const basis = known.last;
  const derived = await singleFlight(
    version ? cacheKey(name, version) : `${name}@?`,
    () => compute({ db: scope.market, scopes, since: basis?.seq ?? -1 }),
    {
      waitUntil: (work) => scope.waitUntil(work),
      keep: (fresh) => {
        const key = cacheKey(name, fresh.snapshot.version);
        const entry: Entry<T> = { value: fresh.value, asOf: fresh.snapshot.asOf };
        const text = JSON.stringify(entry);
        memory.set(key, entry, text.length);
        return scope.cache.put(key, text, { expirationTtl: CACHE_TTL_SECONDS });
      },
    },
  );
  if (derived.snapshot.seen) rememberVersions(scope, basis, derived.snapshot.seen);
  return derived;
}
