import { snapshotQuery, type MarketSnapshot } from "../market/snapshot";
import type { EdgeScope } from "./scope";

interface Shared extends MarketSnapshot {
  /** When this was read from Postgres, epoch ms. */
  readAt: number;
}

/** How long an isolate trusts its copy before asking KV again. */
const MEMORY_TTL_MS = 2_000;
/** How old a KV copy may be before it is read from Postgres again: with the memory TTL, the edge's staleness bound (≤ 60 s). */
const SHARED_MAX_AGE_MS = 55_000;
/** From this age on, a request served from the copy also refreshes it behind its response: under traffic none waits for the read. */
const REFRESH_AFTER_MS = 30_000;
const KEY = "market:snapshot";

let memory: (Shared & { seenAt: number }) | undefined;
/** This isolate's refresh under way, if any: one at a time. */
let refreshing: Promise<unknown> | undefined;

/**
 * The snapshot as the edge knows it, without a database round trip when warm: this isolate's
 * copy (2 s), else KV's (read from Postgres at most 55 s ago), else null — the caller then reads
 * it from Postgres in the same round trip as its own statements and hands it to `rememberSnapshot`.
 * A copy older than 30 s is refreshed behind the response.
 */
export async function cachedSnapshot(scope: EdgeScope): Promise<MarketSnapshot | null> {
  const now = Date.now();
  if (memory && now - memory.seenAt < MEMORY_TTL_MS) return refreshedBehind(scope, memory, now);
  const shared = await scope.cache.get<Shared>(KEY, "json");
  if (!shared || now - shared.readAt >= SHARED_MAX_AGE_MS) return null;
  memory = { ...shared, seenAt: now };
  return refreshedBehind(scope, shared, now);
}

function refreshedBehind(scope: EdgeScope, copy: Shared, now: number): MarketSnapshot {
  if (now - copy.readAt >= REFRESH_AFTER_MS && !refreshing) {
    // A failed read changes nothing: the copy ages out and a request reads it in its own round trip.
    refreshing = refreshSnapshot(scope)
      .catch(() => undefined)
      .finally(() => (refreshing = undefined));
    scope.waitUntil(refreshing);
  }
  return copy;
}

/** Keeps a snapshot just read from Postgres in this isolate and in KV, for every edge. */
export function rememberSnapshot(scope: EdgeScope, snapshot: MarketSnapshot): void {
  const shared: Shared = { version: snapshot.version, asOf: snapshot.asOf, readAt: Date.now() };
  memory = { ...shared, seenAt: shared.readAt };
  scope.waitUntil(scope.cache.put(KEY, JSON.stringify(shared)));
}

/** Reads the snapshot from Postgres and makes it current at this edge at once (the loaders' call after a load). */
export async function refreshSnapshot(scope: EdgeScope): Promise<MarketSnapshot> {
  const [row] = await snapshotQuery(scope.market);
  const snapshot = { version: row?.version ?? 0, asOf: row?.asOf ?? null };
  rememberSnapshot(scope, snapshot);
  return snapshot;
}
