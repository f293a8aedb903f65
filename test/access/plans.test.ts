import { describe, expect, it } from "vitest";
import { planById, STANDARD_LIMITS } from "../../src/domain/plans";
import { admin, bearer, newAccount } from "../support/accounts";
import { probeCall } from "../support/probe-app";
import { call } from "../support/worker";

/** Every limit is read through the account's plan: a plan with other limits must just work. */
describe("limits come from the account's plan", () => {
  const internal = planById("internal")!.limits;

  it("the second plan really differs from the standard one in every limit these tests read", () => {
    expect(internal.requestsPerMinute).not.toBe(STANDARD_LIMITS.requestsPerMinute);
    expect(internal.concurrency).toBeGreaterThan(STANDARD_LIMITS.concurrency);
    expect(internal.maxRows).toBeGreaterThan(STANDARD_LIMITS.maxRows);
    expect(internal.activeKeys).toBeGreaterThan(STANDARD_LIMITS.activeKeys);
  });

  it("rate limit: X-RateLimit-Limit and Remaining follow the plan", async () => {
    const standard = await newAccount();
    const other = await newAccount({ plan: "internal" });
    const a = await probeCall("/v1/test/ok", bearer(standard.keys[0]!.key));
    const b = await probeCall("/v1/test/ok", bearer(other.keys[0]!.key));
    expect(a.headers.get("X-RateLimit-Limit")).toBe(String(STANDARD_LIMITS.requestsPerMinute));
    expect(b.headers.get("X-RateLimit-Limit")).toBe(String(internal.requestsPerMinute));
    expect(b.headers.get("X-RateLimit-Remaining")).toBe(String(internal.requestsPerMinute - 1));
  });

  it("in-flight cap: more overlapping requests than the standard cap are all admitted", async () => {
    const { keys } = await newAccount({ plan: "internal" });
    const n = STANDARD_LIMITS.concurrency + 1;
    expect(n).toBeLessThanOrEqual(internal.concurrency);
    const responses = await Promise.all(Array.from({ length: n }, () => probeCall("/v1/test/slow?ms=300", bearer(keys[0]!.key))));
    expect(responses.map((r) => r.status)).toEqual(Array(n).fill(200));
  });

  it("row clamp: a chain limit of 300 is clamped to 250 on the standard plan and not on a plan allowing more", async () => {
    const standardKey = bearer((await newAccount()).keys[0]!.key);
    const wideKey = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
    // Twice each, interleaved: a warm response rendered for one plan is never another plan's.
    for (let round = 0; round < 2; round++) {
      const standard = await call("/v1/chain/SPY?maxDte=365&limit=300", standardKey);
      const wide = await call("/v1/chain/SPY?maxDte=365&limit=300", wideKey);
      expect(standard.headers.get("X-Limit-Clamped")).toBe("true");
      expect((await standard.json<{ contracts: unknown[] }>()).contracts).toHaveLength(STANDARD_LIMITS.maxRows);
      expect(wide.headers.get("X-Limit-Clamped")).toBeNull();
      expect((await wide.json<{ contracts: unknown[] }>()).contracts).toHaveLength(300);
    }
  });

  it("active keys: the cap is the plan's", async () => {
    const account = await newAccount({ plan: "internal", keys: STANDARD_LIMITS.activeKeys + 1 });
    expect(account.keys).toHaveLength(STANDARD_LIMITS.activeKeys + 1);
    const capped = await newAccount({ keys: STANDARD_LIMITS.activeKeys });
    const refused = await admin.createKey(capped.name);
    expect(refused.status).toBe(409);
  });

  it("the unlisted plan is not offered on /public/plans", async () => {
    const res = await call("/public/plans");
    const ids = (await res.json<{ plans: { id: string }[] }>()).plans.map((p) => p.id);
    expect(ids).toEqual(["trial", "basic"]);
  });
});
