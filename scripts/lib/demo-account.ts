import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedKey } from "../../src/auth/api-key";
import type { SqlBackend } from "./sql-backend";

const DEMO_ACCOUNT = "demo";

/**
 * Ensures the demo account exists with an active Basic subscription and returns an API key for
 * it: the one saved in `keyFile` while it is still active, else a new one (saved there).
 */
export async function ensureDemoKey(backend: SqlBackend, keyFile: string): Promise<{ key: string; created: boolean }> {
  const { rows } = await backend.typedQuery(
    "insert into accounts (name) values ($1) on conflict (name) do update set name = excluded.name returning id",
    [DEMO_ACCOUNT],
  );
  const accountId = rows[0]?.id as number;
  await backend.typedQuery(
    `insert into subscriptions (account_id, plan_id, status) values ($1, 'basic', 'active')
     on conflict (account_id) do update set plan_id = 'basic', status = 'active', updated_at = now()`,
    [accountId],
  );
  if (existsSync(keyFile)) {
    const saved = readFileSync(keyFile, "utf8").trim();
    if (isWellFormedKey(saved)) {
      const hash = await hashApiKey(saved);
      const found = await backend.typedQuery("select 1 from api_keys where key_hash = $1 and account_id = $2 and revoked_at is null", [hash, accountId]);
      if (found.rows.length) return { key: saved, created: false };
    }
  }
  const key = generateApiKey();
  await backend.typedQuery("insert into api_keys (account_id, key_hash, prefix) values ($1, $2, $3)", [accountId, await hashApiKey(key), displayPrefix(key)]);
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return { key, created: true };
}
