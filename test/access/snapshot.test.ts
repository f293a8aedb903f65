import { describe, expect, it } from "vitest";
import { displayPrefix, generateApiKey, hashApiKey } from "../../src/domain/api-key";
import { bearer } from "../support/accounts";
import { controlSql } from "../support/market-db";
import { probeCall } from "../support/probe-app";
import { expectError, testEnv } from "../support/worker";

/**
 * An account written straight into the control-plane database, as another writer (a billing
 * webhook, a migration) would: its Durable Object has never been told about it.
 */
async function accountWrittenElsewhere(status: string, revoked = false): Promise<{ key: string; keyId: number }> {
  const sql = controlSql();
  const name = `elsewhere-${crypto.randomUUID().slice(0, 12)}`;
  const [account] = await sql.query("insert into accounts (name) values ($1) returning id", [name]);
  await sql.query("insert into subscriptions (account_id, plan_id, status) values ($1, 'basic', $2)", [account!.id, status]);
  const key = generateApiKey();
  const [row] = await sql.query(
    `insert into api_keys (account_id, key_hash, prefix, revoked_at) values ($1, $2, $3, ${revoked ? "now()" : "null"}) returning id`,
    [account!.id, await hashApiKey(key), displayPrefix(key)],
  );
  return { key, keyId: row!.id as number };
}

describe("entitlement snapshot loaded from Postgres", () => {
  it("admits a key of an active account its Durable Object has never seen, and caches the key mapping in KV", async () => {
    const { key, keyId } = await accountWrittenElsewhere("active");
    expect(await testEnv.KEY_CACHE.get(`key:${await hashApiKey(key)}`)).toBeNull();
    const res = await probeCall("/v1/auth/verify", bearer(key));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ key_id: keyId, plan: "basic", subscription_status: "active", entitled: true });
    expect(await testEnv.KEY_CACHE.get(`key:${await hashApiKey(key)}`, "json")).toMatchObject({ keyId });
  });

  it("refuses an inactive account and a revoked key found only in Postgres", async () => {
    const canceled = await accountWrittenElsewhere("canceled");
    await expectError(await probeCall("/v1/test/ok", bearer(canceled.key)), 403, "subscription_inactive");
    const revoked = await accountWrittenElsewhere("active", true);
    await expectError(await probeCall("/v1/test/ok", bearer(revoked.key)), 401, "invalid_api_key");
  });
});
