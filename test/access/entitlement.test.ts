import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/domain/api-key";
import { database, useNeonEndpoint } from "../../src/db/client";
import { apiKeys } from "../../src/db/schema";
import { evaluateEntitlement, PAST_DUE_GRACE_DAYS, type EntitlementSnapshot } from "../../src/domain/entitlement";
import { admin, bodyOf, bearer, newAccount } from "../support/accounts";
import { probeCall } from "../support/probe-app";
import { usageRoute } from "../../src/routes/account/usage";
import { verifyRoute } from "../../src/routes/account/verify";
import { contractBody } from "../support/contract";
import { todayInNewYork } from "../../src/domain/calendar";
import { expectError, testEnv } from "../support/worker";

const noRateHeaders = (res: Response) => expect(res.headers.get("X-RateLimit-Limit")).toBeNull();

describe("entitlement on data routes", () => {
  it("admits active and trialing accounts", async () => {
    for (const status of ["active", "trialing"] as const) {
      const { keys } = await newAccount({ status });
      expect((await probeCall("/v1/test/ok", bearer(keys[0]!.key))).status, status).toBe(200);
    }
  });

  it("answers 403 subscription_required without a subscription record", async () => {
    const { keys } = await newAccount({ status: "none" });
    const res = await probeCall("/v1/test/ok", bearer(keys[0]!.key));
    await expectError(res, 403, "subscription_required");
    noRateHeaders(res);
  });

  it("answers 403 subscription_inactive for canceled, unpaid and incomplete subscriptions", async () => {
    for (const status of ["canceled", "unpaid", "incomplete", "incomplete_expired", "paused"] as const) {
      const { keys } = await newAccount({ status });
      await expectError(await probeCall("/v1/test/ok", bearer(keys[0]!.key)), 403, "subscription_inactive");
    }
  });

  it("answers 403 trial_ended after the trial, while keys stay listed", async () => {
    const account = await newAccount({ status: "trialing", trialEnded: true });
    await expectError(await probeCall("/v1/test/ok", bearer(account.keys[0]!.key)), 403, "trial_ended");
    const listed = bodyOf(await admin.listKeys(account.name));
    expect(listed.map((k) => k.id)).toEqual([account.keys[0]!.id]);
  });

  it("answers 403 plan_upgrade_required with required_plan for a plan without API access", async () => {
    const { keys } = await newAccount({ status: "active", plan: "legacy-starter" });
    const body = await expectError(await probeCall("/v1/test/ok", bearer(keys[0]!.key)), 403, "plan_upgrade_required");
    expect(body.required_plan).toBe("basic");
  });

  it("applies a cancellation, a reactivation and a plan change on the very next request", async () => {
    const account = await newAccount({ status: "active" });
    const auth = bearer(account.keys[0]!.key);
    expect((await probeCall("/v1/test/ok", auth)).status).toBe(200);
    expect((await admin.setSubscription(account.name, { status: "canceled" })).status).toBe(200);
    await expectError(await probeCall("/v1/test/ok", auth), 403, "subscription_inactive");
    expect((await admin.setSubscription(account.name, { status: "active", plan: "basic" })).status).toBe(200);
    expect((await probeCall("/v1/test/ok", auth)).status).toBe(200);
    // A plan change applies just as fast.
    expect((await admin.setSubscription(account.name, { status: "active", plan: "legacy-data-only" })).status).toBe(200);
    await expectError(await probeCall("/v1/test/ok", auth), 403, "plan_upgrade_required");
  });

  it("gives each account one trial only", async () => {
    const account = await newAccount({ status: "trialing" });
    await admin.setSubscription(account.name, { status: "active", plan: "basic" });
    const again = await admin.setSubscription(account.name, { status: "trialing" });
    expect(again).toMatchObject({ status: 409, body: { error: "trial_already_used" } });
  });
});

describe("entitlement rules", () => {
  const now = Date.parse("2026-11-20T12:00:00Z");
  const day = 86_400_000;
  const base: EntitlementSnapshot = {
    accountId: 1,
    planId: "basic",
    status: "active",
    trialEnd: null,
    currentPeriodEnd: null,
    pastDueSince: null,
    updatedAt: null,
    activeKeyIds: [],
    version: 1,
  };

  it("keeps past_due accounts entitled for the grace period from the first transition into past_due only", () => {
    const ago = (days: number) => new Date(now - days * day).toISOString();
    const pastDue = { ...base, status: "past_due" };
    expect(evaluateEntitlement({ ...pastDue, pastDueSince: ago(1) }, now)).toEqual({ entitled: true });
    expect(evaluateEntitlement({ ...pastDue, pastDueSince: ago(PAST_DUE_GRACE_DAYS - 0.01) }, now)).toEqual({ entitled: true });
    expect(evaluateEntitlement({ ...pastDue, pastDueSince: ago(PAST_DUE_GRACE_DAYS) }, now)).toMatchObject({
      reason: "subscription_inactive",
    });
    // The provider has moved the period end past the unpaid period: it does not extend the grace.
    expect(evaluateEntitlement({ ...pastDue, pastDueSince: ago(8), currentPeriodEnd: ago(-22) }, now)).toMatchObject({
      reason: "subscription_inactive",
    });
    expect(evaluateEntitlement({ ...pastDue, pastDueSince: null, currentPeriodEnd: ago(-22) }, now)).toMatchObject({
      reason: "subscription_inactive",
    });
    // A snapshot stored before `pastDueSince` existed: the last change of the row.
    expect(evaluateEntitlement({ ...pastDue, updatedAt: ago(2) }, now)).toEqual({ entitled: true });
    expect(evaluateEntitlement({ ...pastDue, updatedAt: ago(PAST_DUE_GRACE_DAYS) }, now)).toMatchObject({
      reason: "subscription_inactive",
    });
    expect(evaluateEntitlement(pastDue, now)).toMatchObject({ reason: "subscription_inactive" });
  });

  it("ends a trial at its end instant, whatever the status says", () => {
    const trial = { ...base, planId: "trial", status: "trialing" };
    expect(evaluateEntitlement({ ...trial, trialEnd: new Date(now + 1).toISOString() }, now)).toEqual({ entitled: true });
    expect(evaluateEntitlement({ ...trial, trialEnd: new Date(now).toISOString() }, now)).toMatchObject({ reason: "trial_ended" });
    expect(evaluateEntitlement({ ...trial, status: "active", trialEnd: new Date(now - day).toISOString() }, now)).toMatchObject({
      reason: "trial_ended",
    });
    expect(evaluateEntitlement({ ...trial, trialEnd: null }, now)).toMatchObject({ reason: "trial_ended" });
  });
});

describe("/v1/auth/verify and /v1/usage need only a valid key", () => {
  it("verify reports the key and the entitlement, entitled or not", async () => {
    const entitled = await newAccount({ status: "active" });
    const res = await probeCall("/v1/auth/verify", bearer(entitled.keys[0]!.key));
    expect(await contractBody(verifyRoute, res)).toEqual({
      key_id: entitled.keys[0]!.id,
      key_prefix: entitled.keys[0]!.key.slice(0, 16),
      status: "authenticated",
      plan: "basic",
      subscription_status: "active",
      entitled: true,
      entitlement_reason: "",
    });
    const canceled = await newAccount({ status: "canceled" });
    const body = await contractBody(verifyRoute, await probeCall("/v1/auth/verify", bearer(canceled.keys[0]!.key)));
    expect(body).toMatchObject({
      plan: "basic",
      subscription_status: "canceled",
      entitled: false,
      entitlement_reason: "subscription_inactive",
    });
    const none = await newAccount({ status: "none" });
    expect(await contractBody(verifyRoute, await probeCall("/v1/auth/verify", bearer(none.keys[0]!.key)))).toMatchObject({
      plan: null,
      subscription_status: null,
      entitled: false,
      entitlement_reason: "subscription_required",
    });
  });

  it("usage counts today's requests in the ET day and resets at the next ET midnight", async () => {
    const { keys } = await newAccount({ status: "active" });
    const auth = bearer(keys[0]!.key);
    await probeCall("/v1/test/ok", auth);
    await probeCall("/v1/test/ok", auth);
    const res = await probeCall("/v1/usage", auth);
    const usage = await contractBody(usageRoute, res);
    expect(usage).toMatchObject({ plan: "basic", subscription_status: "active", entitled: true, date: todayInNewYork() });
    // The counting day is the account's real ET day, not the market clock the data routes are pinned to.
    expect(usage.rate_limit).toEqual({ requests_per_minute: 300 });
    expect(usage.concurrency).toEqual({ max: 5 });
    expect(usage.requests?.today).toBe(3);
    const reset = Date.parse(usage.requests!.reset_at);
    expect(usage.requests!.reset_unix).toBe(reset / 1000);
    expect(reset).toBeGreaterThan(Date.now());
    expect(reset - Date.now()).toBeLessThanOrEqual(25 * 3_600_000);
    const etAtReset = new Intl.DateTimeFormat("en-US", {
      timeZone: "America/New_York",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(new Date(reset));
    expect(etAtReset).toBe("00:00");
  });

  it("usage has null limits without an active plan", async () => {
    const { keys } = await newAccount({ status: "canceled" });
    const usage = await contractBody(usageRoute, await probeCall("/v1/usage", bearer(keys[0]!.key)));
    expect(usage).toMatchObject({ entitled: false, rate_limit: null, concurrency: null, requests: null, subscription_status: "canceled" });
  });
});

describe("keys", () => {
  it("allows at most five active keys and refuses the sixth with a clear error", async () => {
    const account = await newAccount({ keys: 5 });
    const sixth = await admin.createKey(account.name);
    expect(sixth).toMatchObject({
      status: 409,
      body: { error: "key_limit_reached", message: expect.stringMatching(/at most 5 active keys/) },
    });
    await admin.revokeKey(account.keys[0]!.id);
    expect((await admin.createKey(account.name)).status).toBe(201);
  });

  it("refuses a revoked key on the very next request", async () => {
    const account = await newAccount({ keys: 2 });
    const [a, b] = account.keys;
    expect((await probeCall("/v1/test/ok", bearer(a!.key))).status).toBe(200);
    const revoked = bodyOf(await admin.revokeKey(a!.id));
    expect(revoked.revokedAt).not.toBeNull();
    const res = await probeCall("/v1/test/ok", bearer(a!.key));
    await expectError(res, 401, "invalid_api_key");
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect((await probeCall("/v1/test/ok", bearer(b!.key))).status).toBe(200);
  });

  it("stores keys only as hashes and display prefixes", async () => {
    const account = await newAccount();
    const listed = bodyOf(await admin.listKeys(account.name));
    expect(JSON.stringify(listed)).not.toContain(account.keys[0]!.key);
    expect(listed[0]).toEqual({
      id: account.keys[0]!.id,
      prefix: account.keys[0]!.key.slice(0, 16),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      revokedAt: null,
    });
    useNeonEndpoint(testEnv.NEON_HTTP_ENDPOINT);
    const [row] = await database(testEnv.CONTROL_DATABASE_URL).select().from(apiKeys).where(eq(apiKeys.id, account.keys[0]!.id));
    expect(row?.keyHash).toBe(await hashApiKey(account.keys[0]!.key));
    expect(JSON.stringify(row)).not.toContain(account.keys[0]!.key.slice(16));
  });
});
