import { snapshotFrom, marketStateQuery, versionChangesQuery, type MarketVersions, type VersionsSeen } from "../market/snapshot";
import type { EdgeScope } from "./scope";

interface Shared extends MarketVersions {
  /** When this was read from Postgres, epoch ms. */
  readAt: number;
}

/** How long an isolate trusts its copy before asking KV again. */
const MEMORY_TTL_MS = 2_000;
/**
 * How old a KV copy may be before a request reads the versions in its own round trip. With the
 * memory TTL, the edge's staleness bound: a version bumped in Postgres is served within 15 s.
 * The bound holds whatever KV's propagation delay (up to 60 s between locations): an edge judges
 * a copy by when it was read from Postgres, not by when KV delivered it.
 */
const SHARED_MAX_AGE_MS = 13_000;
/** From this age on, a request served from the copy also refreshes it behind its response: under traffic none waits for the read. */
const REFRESH_AFTER_MS = 5_000;
const KEY = "market:versions";

let memory: (Shared & { seenAt: number }) | undefined;
/** This isolate's refresh under way, if any: one at a time. */
let refreshing: Promise<unknown> | undefined;

/**
 * The versions as the edge knows them, without a database round trip when warm: this isolate's
 * copy (2 s), else KV's (read from Postgres at most 13 s ago). `fresh` is null when neither may be
 * served; `last` is then the newest copy at hand, whose changes since the caller reads in its own
 * round trip (`readWithSnapshot`) and hands to `rememberVersions`. A copy older than 5 s is
 * refreshed behind the response.
 */
export async function cachedVersions(scope: EdgeScope): Promise<{ fresh: MarketVersions | null; last: MarketVersions | null }> {
  const now = Date.now();
  if (memory && now - memory.seenAt < MEMORY_TTL_MS) return { fresh: refreshedBehind(scope, memory, now), last: memory };
  const shared = await scope.cache.get<Shared>(KEY, "json");
  const last = newer(shared, memory) ?? null;
  if (!shared || now - shared.readAt >= SHARED_MAX_AGE_MS) return { fresh: null, last };
  memory = { ...shared, seenAt: now };
  return { fresh: refreshedBehind(scope, shared, now), last };
}

function newer(a: Shared | null | undefined, b: Shared | undefined): Shared | undefined {
  if (!a || !b) return a ?? b;
  return a.seq > b.seq || (a.seq === b.seq && a.readAt >= b.readAt) ? a : b;
}

function refreshedBehind(scope: EdgeScope, copy: Shared, now: number): MarketVersions {
  if (now - copy.readAt >= REFRESH_AFTER_MS && !refreshing) {
    // A failed read changes nothing: the copy ages out and a request reads it in its own round trip.
    refreshing = refreshVersions(scope)
      .catch(() => undefined)
      .finally(() => (refreshing = undefined));
    scope.waitUntil(refreshing);
  }
  return copy;
}

/**
 * Keeps what a read from Postgres saw — the load's version and every scope change after `basis`'s
 * sequence (the read's `since`) — as the versions of this isolate and, in KV, of every edge. A
 * copy that has read further is not replaced.
 */
export function rememberVersions(scope: EdgeScope, basis: MarketVersions | null, seen: VersionsSeen): void {
  // Changes read after a later sequence than the basis holds would leave a gap between them.
  if ((basis?.seq ?? -1) < seen.since) return;
  const scopes = { ...basis?.scopes };
  for (const [name, version] of seen.changed) scopes[name] = Math.max(scopes[name] ?? 0, version);
  const read: Shared = { base: seen.base, seq: seen.seq, scopes, readAt: Date.now() };
  if (memory && memory.seq > read.seq) return;
  memory = { ...read, seenAt: read.readAt };
  scope.waitUntil(scope.cache.put(KEY, JSON.stringify(read)));
}

/** Reads the versions from Postgres and makes them current at this edge at once (the loaders' call after a load). */
export async function refreshVersions(scope: EdgeScope): Promise<{ version: number; asOf: string | null }> {
  const basis = newer(await scope.cache.get<Shared>(KEY, "json"), memory) ?? null;
  const db = scope.market;
  const since = basis?.seq ?? -1;
  const [[state], changes] = await db.batch([marketStateQuery(db, []), versionChangesQuery(db, since)]);
  const { seen } = snapshotFrom(state, since, changes);
  rememberVersions(scope, basis, seen);
  return { version: seen.base, asOf: state?.asOf ?? null };
}
