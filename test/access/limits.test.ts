import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { LEASE_MS } from "../../src/limits/admission";
import { Leases } from "../../durable-objects/leases";
import { accountIdOf, bearer, newAccount, type TestAccount } from "../support/accounts";
import { probeCall } from "../support/probe-app";
import { expectError, testEnv } from "../support/worker";

const limiterOf = (accountId: number) => testEnv.ACCOUNT_LIMITER.getByName(String(accountId));

/** The leases the account's object has persisted, read from its storage. */
const storedLeases = (accountId: number) =>
  runInDurableObject(limiterOf(accountId), async (_instance, state) => (await state.storage.get<[string, number][]>("leases")) ?? []);

describe("per-account rate limit (GCRA, 300 per minute across all keys)", () => {
  it("admits exactly 300 of a 400-request burst from two keys of one account; another account is unaffected", async () => {
    const account = await newAccount({ keys: 2 });
    const other = await newAccount();
    const accountId = await accountIdOf(account);
    const [a, b] = account.keys;
    const started = Date.now();
    // Warm the snapshot through the real pipeline first (one admitted request).
    expect((await probeCall("/v1/test/ok", bearer(a!.key))).status).toBe(200);

    // The burst runs inside the object, where the clock does not move between calls.
    const { kinds, ended } = await runInDurableObject(limiterOf(accountId), async (instance) => {
      const out: string[] = [];
      for (let i = 0; i < 399; i++) {
        const r = await instance.admit({ accountId, keyId: i % 2 ? a!.id : b!.id, requireEntitlement: true });
        out.push(r.kind);
        if (r.kind === "admitted") instance.release(r.leaseId);
      }
      return { kinds: out, ended: Date.now() };
    });
    // Exactly 300 when the clock stands still; on a loaded machine one more for each 200 ms the burst took.
    const refilled = Math.floor((ended - started) / 200);
    const admitted = kinds.filter((k) => k === "admitted").length + 1;
    expect(admitted).toBeGreaterThanOrEqual(300);
    expect(admitted).toBeLessThanOrEqual(300 + refilled);
    expect(kinds.filter((k) => k === "rate_limited").length).toBe(400 - admitted);

    // One token comes back every 200 ms: on a slow machine one may have by now, so call until refused.
    let limited = await probeCall("/v1/test/ok", bearer(b!.key));
    for (let i = 0; i < 20 && limited.status === 200; i++) limited = await probeCall("/v1/test/ok", bearer(b!.key));
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
    expect((await probeCall("/v1/test/ok", { ...bearer(keys[0]!.key), method: "HEAD" })).status).toBe(200);
    expect((await probeCall("/v1/test/ok", bearer(keys[0]!.key))).status).toBe(200);
    // The ET-day count of admitted requests: HEAD, GET and this one.
    const usage = await (await probeCall("/v1/usage", bearer(keys[0]!.key))).json<{ requests: { today: number } }>();
    expect(usage.requests.today).toBe(3);
  });
});

describe("metering without a slot (`meter`: the messages of `/mcp`)", () => {
  it("counts `cost` requests in the bucket and the day, all or nothing, beside 5 slots held, and refuses an account without entitlement", async () => {
    const account = await newAccount();
    const accountId = await accountIdOf(account);
    const keyId = account.keys[0]!.id;
    expect((await probeCall("/v1/test/ok", bearer(account.keys[0]!.key))).status).toBe(200);
    // Inside the object, where the clock does not move between calls.
    const out = await runInDurableObject(limiterOf(accountId), async (instance) => {
      const slots = [];
      for (let i = 0; i < 5; i++) slots.push(await instance.admit({ accountId, keyId, requireEntitlement: true }));
      const twenty = await instance.meter({ accountId, keyId, cost: 20 });
      const tooMany = await instance.meter({ accountId, keyId, cost: 300 });
      const one = await instance.meter({ accountId, keyId, cost: 1 });
      const sixth = await instance.admit({ accountId, keyId, requireEntitlement: true });
      for (const slot of slots) if (slot.kind === "admitted") instance.release(slot.leaseId);
      return { slots: slots.map((slot) => slot.kind), twenty, tooMany, one, sixth: sixth.kind };
    });
    expect(out.slots).toEqual(Array(5).fill("admitted"));
    if (out.twenty.kind !== "metered" || out.one.kind !== "metered") throw new Error("expected both counted");
    // 300 less the warm-up (unless its token came back meanwhile), the 5 admitted and the 20.
    expect(out.twenty.rate.remaining).toBeGreaterThanOrEqual(300 - 1 - 5 - 20);
    expect(out.twenty.rate.remaining).toBeLessThanOrEqual(300 - 5 - 20);
    expect(out.twenty.usage.today).toBe(1 + 5 + 20);
    // 300 at once is more than is left: refused, and nothing taken.
    expect(out.tooMany.kind).toBe("rate_limited");
    expect(out.one.rate.remaining).toBe(out.twenty.rate.remaining - 1);
    expect(out.one.usage.today).toBe(1 + 5 + 20 + 1);
    // Metering took no slot: the 5 admitted hold them all.
    expect(out.sixth).toBe("too_many_concurrent");

    const ended = await newAccount({ status: "trialing", trialEnded: true });
    const endedId = await accountIdOf(ended);
    expect(await limiterOf(endedId).meter({ accountId: endedId, keyId: ended.keys[0]!.id, cost: 1 })).toMatchObject({
      kind: "not_entitled",
      entitlement: { reason: "trial_ended" },
    });
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

  it("returns to zero in flight after 1,000 requests, many of them throwing or abandoned by the client", async () => {
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
            // The client gives up after 5 ms and never reads the answer; the request runs on.
            const abandoned = probeCall("/v1/test/slow?ms=200", bearer(account.keys[0]!.key)).then((r) => r.status);
            return Promise.race([abandoned, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5))]);
          }
          return probeCall(path, bearer(account.keys[0]!.key)).then((r) => r.status);
        });
        for (const s of await Promise.all(batch)) statuses.set(s, (statuses.get(s) ?? 0) + 1);
      }
    };
    await Promise.all(accounts.map(worker));
    expect(sent).toBe(1000);
    // 212 requests throw; on a loaded machine the abandoned slow ones hold slots and turn some into 429s.
    expect(statuses.get(500)).toBeGreaterThan(50);
    expect(statuses.get(-1) ?? 0).toBeGreaterThan(0);

    // Once the abandoned requests' deferred releases have run, every account is idle (well before any lease expires).
    await vi.waitFor(async () => {
      for (const id of ids) expect(await storedLeases(id)).toEqual([]);
    }, 10_000);
  }, 120_000);

  it("keeps a lost release's lease in storage with an alarm at its expiry, re-armed while it is held", async () => {
    const account = await newAccount();
    const id = await accountIdOf(account);
    expect((await probeCall("/v1/test/ok", bearer(account.keys[0]!.key))).status).toBe(200);
    expect(await storedLeases(id)).toEqual([]);
    const stub = limiterOf(id);
    const lost = await stub.admit({ accountId: id, keyId: account.keys[0]!.id, requireEntitlement: true });
    if (lost.kind !== "admitted") throw new Error(`expected admission, got ${lost.kind}`);
    const [lease] = await storedLeases(id);
    expect(lease?.[0]).toBe(lost.leaseId);
    expect(lease![1] - Date.now()).toBeGreaterThan(LEASE_MS - 5_000);
    expect(lease![1] - Date.now()).toBeLessThanOrEqual(LEASE_MS);
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    // At or before the earliest expiry (an earlier, released lease may have set it).
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(lease![1]);
    // The alarm sweeps only what has expired and re-arms for the lease still held.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await storedLeases(id)).toEqual([lease]);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(lease![1]);
    await stub.release(lost.leaseId);
    await stub.release(lost.leaseId);
    expect(await storedLeases(id)).toEqual([]);
  });
});

describe("leases (the clock passed in)", () => {
  it("expire at their deadline, are released once, and report the earliest expiry", () => {
    const leases = new Leases();
    const a = leases.acquire(1_000, LEASE_MS);
    const b = leases.acquire(2_000, LEASE_MS);
    expect(leases.size).toBe(2);
    expect(leases.nextExpiry()).toBe(1_000 + LEASE_MS);
    expect(leases.sweep(1_000 + LEASE_MS - 1)).toBe(false);
    expect(leases.sweep(1_000 + LEASE_MS)).toBe(true);
    expect(leases.size).toBe(1);
    expect(leases.release(a)).toBe(false);
    expect(leases.release(b)).toBe(true);
    expect(leases.release(b)).toBe(false);
    expect(leases.nextExpiry()).toBeNull();
  });
});
