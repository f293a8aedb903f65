import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LEASE_MS } from "../src/limits/admission";
import { bearer, newAccount, type TestAccount } from "./support/accounts";
import { probeCall } from "./support/probe-app";
import { call, expectError, testEnv } from "./support/worker";

async function accountIdOf(account: TestAccount): Promise<number> {
  const res = await call(`/admin/accounts/${account.name}`, { headers: { Authorization: "Bearer test-admin-token-0123456789" } });
  return (await res.json<{ id: number }>()).id;
}

const limiterOf = (accountId: number) => testEnv.ACCOUNT_LIMITER.getByName(String(accountId));

describe("per-account rate limit (GCRA, 300 per minute across all keys)", () => {
  it("admits exactly 300 of a 400-request burst from two keys of one account; another account is unaffected", async () => {
    const account = await newAccount({ keys: 2 });
    const other = await newAccount();
    const accountId = await accountIdOf(account);
    const [a, b] = account.keys;
    // Warm the snapshot through the real pipeline first (one admitted request).
    expect((await probeCall("/v1/test/ok", bearer(a!.key))).status).toBe(200);

    // The burst runs inside the object, where the clock does not move between calls.
    const kinds = await runInDurableObject(limiterOf(accountId), async (instance) => {
      const out: string[] = [];
      for (let i = 0; i < 399; i++) {
        const r = await instance.admit({ accountId, keyId: i % 2 ? a!.id : b!.id, requireEntitlement: true });
        out.push(r.kind);
        if (r.kind === "admitted") instance.release(r.leaseId);
      }
      return out;
    });
    expect(kinds.filter((k) => k === "admitted").length + 1).toBe(300);
    expect(kinds.filter((k) => k === "rate_limited").length).toBe(100);

    const limited = await probeCall("/v1/test/ok", bearer(b!.key));
    await expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("X-RateLimit-Limit")).toBe("300");
    expect(limited.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(Number(limited.headers.get("X-RateLimit-Reset"))).toBeGreaterThan(55);

    const unaffected = await probeCall("/v1/test/ok", bearer(other.keys[0]!.key));
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get("X-RateLimit-Remaining")).toBe("299");
  });

  it("counts HEAD like GET", async () => {
    const { keys } = await newAccount();
    const first = await probeCall("/v1/test/ok", { ...bearer(keys[0]!.key), method: "HEAD" });
    const second = await probeCall("/v1/test/ok", bearer(keys[0]!.key));
    expect(Number(first.headers.get("X-RateLimit-Remaining")) - Number(second.headers.get("X-RateLimit-Remaining"))).toBe(1);
  });
});

describe("in-flight cap (5 per account)", () => {
  it("answers exactly one of 6 overlapping slow requests with 429 too_many_concurrent_requests and Retry-After: 1", async () => {
    const { keys } = await newAccount({ keys: 2 });
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => probeCall("/v1/test/slow?ms=400", bearer(keys[i % 2]!.key))));
    const rejected = responses.filter((r) => r.status === 429);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    expect(rejected).toHaveLength(1);
    await expectError(rejected[0]!, 429, "too_many_concurrent_requests");
    expect(rejected[0]!.headers.get("Retry-After")).toBe("1");
    expect(rejected[0]!.headers.get("X-RateLimit-Limit")).toBe("300");
    // Once they finish, slots are free again.
    expect((await probeCall("/v1/test/ok", bearer(keys[0]!.key))).status).toBe(200);
  });

  it("returns to zero in flight after 1,000 requests, many of them throwing or aborted", async () => {
    const accounts = await Promise.all(Array.from({ length: 4 }, () => newAccount()));
    const ids = await Promise.all(accounts.map(accountIdOf));
    const paths = ["/v1/test/ok", "/v1/test/throw", "/v1/test/slow?ms=30", "/v1/test/validated?n=x"];
    let sent = 0;
    const statuses = new Map<number, number>();
    const worker = async (account: TestAccount) => {
      for (let i = 0; i < 50; i++) {
        const batch = Array.from({ length: 5 }, (_, j) => {
          sent++;
          const path = paths[(i + j) % paths.length]!;
          if ((i + j) % 7 === 0) {
            // Client gives up early: the request is aborted mid-flight.
            return call(path.replace("ms=30", "ms=200"), { ...bearer(account.keys[0]!.key), signal: AbortSignal.timeout(5) }).then(
              (r) => r.status,
              () => -1,
            );
          }
          return probeCall(path, bearer(account.keys[0]!.key)).then((r) => r.status);
        });
        for (const s of await Promise.all(batch)) statuses.set(s, (statuses.get(s) ?? 0) + 1);
      }
    };
    await Promise.all(accounts.map(worker));
    expect(sent).toBe(1000);
    expect(statuses.get(500)).toBeGreaterThan(100);
    expect(statuses.get(-1) ?? 0).toBeGreaterThan(0);

    // Give aborted requests' deferred releases a moment, then every account must be idle.
    await new Promise((r) => setTimeout(r, 600));
    for (const id of ids) {
      const inFlight = await runInDurableObject(limiterOf(id), (instance) => {
        // Anything still held is a lost release: it must go once its lease expires.
        instance.sweepExpiredLeases(Date.now() + LEASE_MS);
        return instance.inFlight();
      });
      expect(inFlight).toBe(0);
    }
  });

  it("expires a lost release with its lease, swept on acquire and by an alarm", async () => {
    const account = await newAccount();
    const id = await accountIdOf(account);
    expect((await probeCall("/v1/test/ok", bearer(account.keys[0]!.key))).status).toBe(200);
    const stub = limiterOf(id);
    const lost = await stub.admit({ accountId: id, keyId: account.keys[0]!.id, requireEntitlement: true });
    expect(lost.kind).toBe("admitted");
    expect(await stub.inFlight()).toBe(1);
    // The alarm sweeps what has expired and re-arms for the lease still held.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.inFlight()).toBe(1);
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm! - Date.now()).toBeGreaterThan(LEASE_MS - 5_000);
    expect(alarm! - Date.now()).toBeLessThanOrEqual(LEASE_MS);
    // At the lease's expiry the slot is free again.
    await runInDurableObject(stub, (instance) => instance.sweepExpiredLeases(alarm!));
    expect(await stub.inFlight()).toBe(0);
    if (lost.kind === "admitted") await stub.release(lost.leaseId);
    expect(await stub.inFlight()).toBe(0);
  });
});
