import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/domain/api-key";
import { accountIdOf, admin, bearer, newAccount } from "../support/accounts";
import { limiterOf, snapshotAt, storedSnapshot, unpushedControlPlane } from "../support/account-limiter";
import { probeCall } from "../support/probe-app";
import { testEnv } from "../support/worker";
import { countedAlias, endpointTripsFor } from "../support/counted-database";
import { advanceClock } from "../support/clock";

/**
 * What a revoked or unlisted key costs, counted in round trips to the control database. The local endpoint counts
 * them per database name, for every caller: these run alone (after every other file) so that no concurrent test's
 * queries are counted as theirs.
 */

/**
 * The control database under a name of its own for the Worker's lookups (the local endpoint counts
 * round trips per name), and the "control" name the Durable Objects use.
 */
function countedControl(): { env: typeof testEnv; edgeTrips: () => Promise<number>; controlTrips: () => Promise<number> } {
  const { url, trips } = countedAlias(testEnv.CONTROL_DATABASE_URL, "control");
  const controlName = new URL(testEnv.CONTROL_DATABASE_URL).pathname.slice(1);
  return {
    env: { ...testEnv, CONTROL_DATABASE_URL: url },
    edgeTrips: trips,
    controlTrips: () => endpointTripsFor(testEnv.CONTROL_DATABASE_URL, controlName),
  };
}

describe("a revoked key still cached at the edge", () => {
  it("cost nothing: 20,000 requests with a revoked key still cached at the edge → 401/429 only, no snapshot reload, no lookup", async () => {
    const account = await newAccount();
    const id = await accountIdOf(account);
    const key = account.keys[0]!;
    const { env, edgeTrips, controlTrips } = countedControl();
    // The key is in use: this isolate (and KV) map it to its account as an active key.
    expect((await probeCall("/v1/test/ok", bearer(key.key), env)).status).toBe(200);
    expect((await admin.revokeKey(key.id)).status).toBe(200);
    // Past the once-a-second bound on reloads for keys the snapshot does not list.
    advanceClock(1_100);
    const [edgeBefore, controlBefore, loadedAt] = await Promise.all([edgeTrips(), controlTrips(), snapshotAt(id)]);

    const clients = Array.from({ length: 20 }, (_, i) => `203.0.113.${i + 1}`);
    const statuses = new Map<number, number>();
    const started = Date.now();
    const total = 20_000;
    const batch = 500;
    for (let sent = 0; sent < total; sent += batch) {
      const responses = await Promise.all(
        Array.from({ length: batch }, (_, i) =>
          probeCall("/v1/test/ok", bearer(key.key, { "CF-Connecting-IP": clients[(sent + i) % clients.length]! }), env),
        ),
      );
      for (const res of responses) {
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        await res.body?.cancel();
      }
    }
    const elapsed = Date.now() - started;
    const [edgeAfter, controlAfter] = await Promise.all([edgeTrips(), controlTrips()]);
    console.log(
      JSON.stringify({
        revokedKeyFlood: {
          total,
          elapsedMs: elapsed,
          statuses: Object.fromEntries(statuses),
          edgeTrips: edgeAfter - edgeBefore,
          controlTrips: controlAfter - controlBefore,
        },
      }),
    );

    expect([...statuses.keys()].sort()).toEqual([401, 429]);
    // Each client fails at most 10 times before it is locked out.
    expect(statuses.get(401)).toBeLessThanOrEqual(10 * clients.length);
    // No key lookup by the Worker, no snapshot reload by the account's object.
    expect(edgeAfter - edgeBefore).toBe(0);
    expect(await snapshotAt(id)).toBe(loadedAt);
    // This flood adds at most a handful (usage accounting, not lookups).
    expect(controlAfter - controlBefore).toBeLessThanOrEqual(5);
    // The revocation reached KV: other isolates refuse the key without asking the object.
    expect(await testEnv.KEY_CACHE.get(`key:${await hashApiKey(key.key)}`, "json")).toMatchObject({ revoked: true });
  });
});

describe("a key issued after the object's snapshot", () => {
  it("shares one reload among concurrent admits of a key issued after its snapshot", async () => {
    const account = await newAccount();
    const id = await accountIdOf(account);
    const { controlTrips } = countedControl();
    const lost = unpushedControlPlane();
    const created = await lost.keys.create(account.name);
    if (!created.ok) throw new Error(created.message);
    expect((await storedSnapshot(id))!.maxKeyId).toBeLessThan(created.value.id);
    advanceClock(1_100);
    const before = await controlTrips();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => limiterOf(id).admit({ accountId: id, keyId: created.value.id, requireEntitlement: false })),
    );
    const trips = (await controlTrips()) - before;
    expect(results.every((r) => r.kind === "admitted" || r.kind === "too_many_concurrent")).toBe(true);
    // One reload, shared by all fifty; a little room for the object's own usage writes.
    expect(trips).toBeGreaterThanOrEqual(1);
    expect(trips).toBeLessThanOrEqual(3);
    for (const r of results) if (r.kind === "admitted") await limiterOf(id).release(r.leaseId);
  });
});
