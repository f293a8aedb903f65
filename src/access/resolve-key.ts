import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { apiKeys } from "../db/schema";
import { hashApiKey } from "./api-key";

export interface KeyIdentity {
  accountId: number;
  keyId: number;
}

const CACHE_TTL_SECONDS = 86_400;
const MEMORY_ENTRIES = 10_000;

/** In-isolate copy of the KV mapping (insertion-ordered map as a small LRU). */
const memory = new Map<string, KeyIdentity>();

function remember(hash: string, identity: KeyIdentity): void {
  memory.delete(hash);
  memory.set(hash, identity);
  if (memory.size > MEMORY_ENTRIES) memory.delete(memory.keys().next().value as string);
}

/**
 * Key → (account, key id) by SHA-256: isolate memory, then KV (the mapping never changes, so
 * neither cache can be stale), then Postgres. Revocation is not cached here: the account's
 * Durable Object holds the revoked ids and refuses them on the next request.
 */
export interface KeyLookup {
  cache: KVNamespace;
  /** Called before a Postgres lookup; throws to refuse it (the per-client throttle of unknown keys). */
  beforeLookup: () => Promise<void>;
  db: () => Database;
  defer: (work: Promise<unknown>) => void;
}

export async function resolveKey(key: string, lookup: KeyLookup): Promise<(KeyIdentity & { revoked: boolean }) | null> {
  const { cache, db, defer } = lookup;
  const hash = await hashApiKey(key);
  const known = memory.get(hash);
  if (known) return { ...known, revoked: false };
  const cached = await cache.get<KeyIdentity>(`key:${hash}`, "json");
  if (cached) {
    remember(hash, cached);
    return { ...cached, revoked: false };
  }
  await lookup.beforeLookup();
  const [row] = await db()
    .select({ keyId: apiKeys.id, accountId: apiKeys.accountId, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, hash));
  if (!row) return null;
  const identity: KeyIdentity = { accountId: row.accountId, keyId: row.keyId };
  // A revoked key is never cached: each attempt with it stays a counted failure.
  if (row.revokedAt !== null) return { ...identity, revoked: true };
  remember(hash, identity);
  defer(cache.put(`key:${hash}`, JSON.stringify(identity), { expirationTtl: CACHE_TTL_SECONDS }));
  return { ...identity, revoked: false };
}
