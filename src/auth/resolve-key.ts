import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { apiKeys } from "../db/schema";
import { hashApiKey } from "./api-key";

export interface KeyIdentity {
  accountId: number;
  keyId: number;
}

const CACHE_TTL_SECONDS = 86_400;

/**
 * Key → (account, key id) by SHA-256: KV first (the mapping never changes), Postgres on a miss.
 * Revocation is not cached here: the account's Durable Object holds the revoked ids.
 */
export async function resolveKey(
  key: string,
  cache: KVNamespace,
  db: () => Database,
  defer: (work: Promise<unknown>) => void,
): Promise<(KeyIdentity & { revoked: boolean }) | null> {
  const hash = await hashApiKey(key);
  const cached = await cache.get<KeyIdentity>(`key:${hash}`, "json");
  if (cached) return { ...cached, revoked: false };
  const [row] = await db()
    .select({ keyId: apiKeys.id, accountId: apiKeys.accountId, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, hash));
  if (!row) return null;
  const identity: KeyIdentity = { accountId: row.accountId, keyId: row.keyId };
  defer(cache.put(`key:${hash}`, JSON.stringify(identity), { expirationTtl: CACHE_TTL_SECONDS }));
  return { ...identity, revoked: row.revokedAt !== null };
}
