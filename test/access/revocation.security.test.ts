import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { displayPrefix, generateApiKey, hashApiKey } from "../../src/domain/api-key";
import { loadEntitlementSnapshot } from "../../src/control/snapshot";
import { database } from "../../src/db/client";
import type { EntitlementSnapshot } from "../../src/domain/entitlement";
import { SNAPSHOT_MAX_AGE_MS } from "../../src/limits/admission";
import { accountIdOf, admin, bearer, newAccount } from "../support/accounts";
import { limiterOf, snapshotAt, storedSnapshot, unpushedControlPlane } from "../support/account-limiter";
import { controlSql } from "../support/market-db";
import { probeCall } from "../support/probe-app";
import { expectError, testEnv } from "../support/worker";
import { advanceClock } from "../support/clock";

const controlDb = () => database(testEnv.CONTROL_DATABASE_URL);

describe("versioned entitlement snapshots", () => {
  it("an older push arriving after a revocation cannot bring the key back", async () => {
    const account = await newAccount();
    const id = await accountIdOf(account);
    const key = account.keys[0]!;
    const before = await loadEntitlementSnapshot(controlDb(), id);
    expect(before.activeKeyIds).toContain(key.id);
    expect((await admin.revokeKey(key.id)).status).toBe(200);
    // A writer that read the snapshot before the revocation committed pushes it late.
    await limiterOf(id).pushSnapshot(before);
    await expectError(await probeCall("/v1/test/ok", bearer(key.key)), 401, "invalid_api_key");
    expect((await storedSnapshot(id))!.version).toBeGreaterThan(before.version);
  });

  it("a load from Postgres that finishes after a push does not overwrite the pushed snapshot", async () => {
    // An account the object has never seen: its first admission loads the snapshot from Postgres.
    const sql = controlSql();
    const [row] = await sql.query("insert into accounts (name) values ($1) returning id", [`cold-${crypto.randomUUID().slice(0, 12)}`]);
    const id = row!.id as number;
    await sql.query("insert into subscriptions (account_id, plan_id, status) values ($1, 'basic', 'active')", [id]);
    const key = generateApiKey();
    const [k] = await sql.query("insert into api_keys (account_id, key_hash, prefix) values ($1, $2, $3) returning id", [
      id,
      await hashApiKey(key),
      displayPrefix(key),
    ]);
    const stale = await loadEntitlementSnapshot(controlDb(), id);
    const newer: EntitlementSnapshot = { ...stale, activeKeyIds: [], version: stale.version + 5 };
    // The push lands while the object awaits Postgres for the cold load; whichever finishes first, the newer one stays.
    const stub = limiterOf(id);
    const [racing] = await Promise.all([
      stub.admit({ accountId: id, keyId: k!.id as number, requireEntitlement: true }),
      stub.pushSnapshot(newer),
    ]);
    expect(["admitted", "revoked"]).toContain(racing.kind);
    expect(await storedSnapshot(id)).toMatchObject({ version: newer.version, activeKeyIds: [] });
    expect((await stub.admit({ accountId: id, keyId: k!.id as number, requireEntitlement: true })).kind).toBe("revoked");
  });

  it("refuses a key whose row was deleted by hand once the snapshot is reloaded (an allowlist, not a revocation list)", async () => {
    const account = await newAccount({ keys: 2 });
    const [gone, kept] = account.keys;
    expect((await probeCall("/v1/test/ok", bearer(gone!.key))).status).toBe(200);
    await controlSql().query("delete from api_keys where id = $1", [gone!.id]);
    // Any later control-plane write reloads the snapshot; the deleted key is no longer on it.
    expect((await admin.createKey(account.name)).status).toBe(201);
    await expectError(await probeCall("/v1/test/ok", bearer(gone!.key)), 401, "invalid_api_key");
    expect((await probeCall("/v1/test/ok", bearer(kept!.key))).status).toBe(200);
  });

  it(`reloads a snapshot older than ${SNAPSHOT_MAX_AGE_MS / 1000} s behind the request, so a change nobody pushed takes effect`, async () => {
    const account = await newAccount();
    const id = await accountIdOf(account);
    expect((await probeCall("/v1/test/ok", bearer(account.keys[0]!.key))).status).toBe(200);
    // A writer that does not push (or whose push was lost) cancels the subscription.
    await controlSql().query("update subscriptions set status = 'canceled' where account_id = $1", [id]);
    await controlSql().query("update accounts set snapshot_version = snapshot_version + 1 where id = $1", [id]);
    expect((await probeCall("/v1/test/ok", bearer(account.keys[0]!.key))).status).toBe(200);
    // The object restarts with a snapshot past its age (storage is what a restarted object reads).
    await runInDurableObject(limiterOf(id), (_o, state) => state.storage.put("snapshotAt", Date.now() - SNAPSHOT_MAX_AGE_MS - 1));
    await runInDurableObject(limiterOf(id), (_o, state) => state.abort("restart")).catch(() => undefined);
    // The next request is still decided with it (it never waits for the database) and reloads it behind itself...
    expect((await probeCall("/v1/test/ok", bearer(account.keys[0]!.key))).status).toBe(200);
    await vi.waitFor(async () => expect((await storedSnapshot(id))?.status).toBe("canceled"));
    // ...so the change holds from the one after.
    await expectError(await probeCall("/v1/test/ok", bearer(account.keys[0]!.key)), 403, "subscription_inactive");
  });

  it("admits a key created after the object's snapshot was taken, even if its push was lost", async () => {
    const account = await newAccount();
    const id = await accountIdOf(account);
    const lost = unpushedControlPlane();
    const created = await lost.keys.create(account.name);
    if (!created.ok) throw new Error(created.message);
    expect((await storedSnapshot(id))!.activeKeyIds).not.toContain(created.value.id);
    advanceClock(1_100);
    expect((await probeCall("/v1/test/ok", bearer(created.value.key))).status).toBe(200);
  });
});

describe("a revocation whose push fails", () => {
  it("is still committed and reported as done, not a 500", async () => {
    const account = await newAccount();
    const key = account.keys[0]!;
    const lost = unpushedControlPlane();
    const revoked = await lost.keys.revoke(key.id);
    expect(revoked).toMatchObject({ ok: true, value: { id: key.id, revokedAt: expect.any(String) } });
    const [row] = await controlSql().query("select revoked_at from api_keys where id = $1", [key.id]);
    expect(row!.revoked_at).not.toBeNull();
  });
});

describe("revoked keys", () => {
  it("are remembered as revoked, never as usable: a revoked key found in Postgres is cached with its revocation", async () => {
    const account = await newAccount();
    const key = account.keys[0]!;
    await admin.revokeKey(key.id);
    await expectError(await probeCall("/v1/auth/verify", bearer(key.key)), 401, "invalid_api_key");
    expect(await testEnv.KEY_CACHE.get(`key:${await hashApiKey(key.key)}`, "json")).toMatchObject({ keyId: key.id, revoked: true });
    await expectError(await probeCall("/v1/auth/verify", bearer(key.key)), 401, "invalid_api_key");
  });
});

describe("the account's object and keys it does not list", () => {
  it("refuses a revoked id (at or below the highest issued) without reloading its snapshot", async () => {
    const account = await newAccount({ keys: 2 });
    const id = await accountIdOf(account);
    const [revoked, kept] = account.keys;
    expect((await admin.revokeKey(revoked!.id)).status).toBe(200);
    expect((await storedSnapshot(id))!.maxKeyId).toBe(kept!.id);
    advanceClock(1_100);
    const loadedAt = await snapshotAt(id);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => limiterOf(id).admit({ accountId: id, keyId: revoked!.id, requireEntitlement: true })),
    );
    expect(new Set(results.map((r) => r.kind))).toEqual(new Set(["revoked"]));
    expect(await snapshotAt(id)).toBe(loadedAt);
  });
});
