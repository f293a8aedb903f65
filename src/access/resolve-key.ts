import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { apiKeys } from "../db/schema";
import { hashApiKey } from "../domain/api-key";

export interface KeyIdentity {
  accountId: number;
  keyId: number;
}

/** A presented key, resolved: who it belongs to, its hash (the cache key) and whether it is known to be revoked. */
export interface ResolvedKey extends KeyIdentity {
  hash: string;
  revoked: boolean;
}

/** What isolate memory and KV hold per key hash; `revoked` is set once and never cleared. */
interface CachedKey extends KeyIdentity {
  revoked?: true;
}

const CACHE_TTL_SECONDS = 86_400;
const MEMORY_ENTRIES = 10_000;

/** In-isolate copy of the KV mapping (insertion-ordered map as a small LRU). */
const memory = new Map<string, CachedKey>();

function remember(hash: string, entry: CachedKey): void {
  memory.delete(hash);
  memory.set(hash, entry);
  if (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value as string);
}

/**
 * Key → (account, key id) by SHA-256: isolate memory, then KV (the mapping never changes, so
 * neither cache can be stale), then Postgres. Whether an active key may call is the account's
 * Durable Object's to say; that a key is revoked is final, so it is remembered in both caches
 * (`rememberRevoked`) and such a key costs no further call to the object or the database.
 */
export interface KeyLookup {
  cache: KVNamespace;
  /** Called before a Postgres lookup; throws to refuse it (the per-client throttle of unknown keys). */
  beforeLookup: () => Promise<void>;
  db: () => Database;
  defer: (work: Promise<unknown>) => void;
}

export async function resolveKey(key: string, lookup: KeyLookup): Promise<ResolvedKey | null> {
  const { cache, db, defer } = lookup;
  const hash = await hashApiKey(key);
  const known = memory.get(hash);
  if (known) return resolved(hash, known);
  const cached = await cache.get<CachedKey>(`key:${hash}`, "json");
  if (cached) {
    remember(hash, cached);
    return resolved(hash, cached);
  }
  await lookup.beforeLookup();
  const [row] = await db()
    .select({ keyId: apiKeys.id, accountId: apiKeys.accountId, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, hash));
  if (!row) return null;
  const entry: CachedKey = { accountId: row.accountId, keyId: row.keyId, ...(row.revokedAt !== null ? { revoked: true as const } : {}) };
  remember(hash, entry);
  defer(cache.put(`key:${hash}`, JSON.stringify(entry), { expirationTtl: CACHE_TTL_SECONDS }));
  return resolved(hash, entry);
}

/**
 * Remembers that a key is revoked (its account's object said so): a key is never un-revoked, so
 * the next attempt with it is refused (and counted) without a call to the object, here at once
 * and on other isolates once KV has the entry.
 */
export function rememberRevoked(key: ResolvedKey, cache: KVNamespace, defer: (work: Promise<unknown>) => void): void {
  if (memory.get(key.hash)?.revoked) return;
  const entry: CachedKey = { accountId: key.accountId, keyId: key.keyId, revoked: true };
  remember(key.hash, entry);
  defer(cache.put(`key:${key.hash}`, JSON.stringify(entry), { expirationTtl: CACHE_TTL_SECONDS }));
}

function resolved(hash: string, entry: CachedKey): ResolvedKey {
  return { accountId: entry.accountId, keyId: entry.keyId, hash, revoked: entry.revoked === true };
}
