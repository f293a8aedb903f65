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
export async function resolveKey(
  key: string,
  cache: KVNamespace,
  db: () => Database,
  defer: (work: Promise<unknown>) => void,
): Promise<(KeyIdentity & { revoked: boolean }) | null> {
  const hash = await hashApiKey(key);
  const known = memory.get(hash);
  if (known) return { ...known, revoked: false };
  const cached = await cache.get<KeyIdentity>(`key:${hash}`, "json");
  if (cached) {
    remember(hash, cached);
    return { ...cached, revoked: false };
  }
  const [row] = await db()
    .select({ keyId: apiKeys.id, accountId: apiKeys.accountId, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, hash));
  if (!row) return null;
  const identity: KeyIdentity = { accountId: row.accountId, keyId: row.keyId };
  remember(hash, identity);
  defer(cache.put(`key:${hash}`, JSON.stringify(identity), { expirationTtl: CACHE_TTL_SECONDS }));
  return { ...identity, revoked: row.revokedAt !== null };
}
