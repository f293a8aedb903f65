import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { admin, bearer, newAccount, type TestAccount } from "./support/accounts";
import { call, callWith, expectError, testEnv } from "./support/worker";

const stripe = new Stripe("sk_test_signing_only", { httpClient: Stripe.createFetchHttpClient() });

interface AccountShow {
  id: number;
  subscription: { plan: string; status: string; trialEnd: string | null } | null;
}

const show = async (name: string) => (await admin<AccountShow>("GET", `/admin/accounts/${name}`)).body;

let eventCounter = 0;

/** A subscription event as Stripe sends it (API shape of 2025+: the period end lives on the item). */
function subscriptionEvent(
  type: string,
  o: { accountId?: number; customer: string; status: string; created: number; periodEnd?: number; id?: string },
): string {
  return JSON.stringify({
    id: o.id ?? `evt_test_${Date.now()}_${++eventCounter}`,
    object: "event",
    api_version: "2025-10-29.clover",
    created: o.created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: {
      object: {
        id: `sub_${o.customer}`,
        object: "subscription",
        customer: o.customer,
        status: o.status,
        metadata: o.accountId === undefined ? {} : { account_id: String(o.accountId) },
        items: {
          object: "list",
          data: [{ id: "si_test", object: "subscription_item", current_period_end: o.periodEnd ?? o.created + 30 * 86_400 }],
        },
      },
    },
  });
}

function invoiceFailedEvent(o: { customer: string; created: number }): string {
  return JSON.stringify({
    id: `evt_test_${Date.now()}_${++eventCounter}`,
    object: "event",
    api_version: "2025-10-29.clover",
    created: o.created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: "invoice.payment_failed",
    data: {
      object: {
        id: "in_test",
        object: "invoice",
        customer: o.customer,
        status: "open",
        parent: { type: "subscription_details", subscription_details: { subscription: `sub_${o.customer}`, metadata: {} } },
      },
    },
  });
}

/** Delivers a payload signed by the SDK's own test-header helper (optionally with another secret or time). */
async function deliver(payload: string, options: { secret?: string; timestamp?: number } = {}): Promise<Response> {
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: options.secret ?? testEnv.STRIPE_WEBHOOK_SECRET ?? "",
    timestamp: options.timestamp,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  return call("/webhooks/stripe", {
    method: "POST",
    headers: { "Stripe-Signature": header, "Content-Type": "application/json" },
    body: payload,
  });
}

async function outcome(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { outcome: string }).outcome;
}

const now = () => Math.floor(Date.now() / 1000);

async function payingCustomer(): Promise<{ account: TestAccount; id: number; customer: string }> {
  const account = await newAccount({ status: "none" });
  const { id } = await show(account.name);
  return { account, id, customer: `cus_${account.name.replace(/[^0-9a-z]/gi, "")}` };
}

describe("POST /webhooks/stripe", () => {
  it("applies subscription created, payment failed (past_due) and canceled, each on the very next API request", async () => {
    const { account, id, customer } = await payingCustomer();
    const key = account.keys[0]!.key;
    await expectError(await call("/v1/expirations/SPY", bearer(key)), 403, "subscription_required");

    const t = now();
    expect(
      await outcome(
        await deliver(subscriptionEvent("customer.subscription.created", { accountId: id, customer, status: "active", created: t - 30 })),
      ),
    ).toBe("applied");
    expect((await show(account.name)).subscription).toMatchObject({ plan: "basic", status: "active" });
    expect((await call("/v1/expirations/SPY", bearer(key))).status).toBe(200);

    // A failed renewal: past_due, found by customer id, still inside the grace period.
    expect(await outcome(await deliver(invoiceFailedEvent({ customer, created: t - 20 })))).toBe("applied");
    expect((await show(account.name)).subscription?.status).toBe("past_due");
    expect((await call("/v1/expirations/SPY", bearer(key))).status).toBe(200);

    expect(
      await outcome(
        await deliver(subscriptionEvent("customer.subscription.updated", { accountId: id, customer, status: "active", created: t - 10 })),
      ),
    ).toBe("applied");
    expect(
      await outcome(
        await deliver(subscriptionEvent("customer.subscription.deleted", { accountId: id, customer, status: "canceled", created: t })),
      ),
    ).toBe("applied");
    expect((await show(account.name)).subscription?.status).toBe("canceled");
    await expectError(await call("/v1/expirations/SPY", bearer(key)), 403, "subscription_inactive");
  });

  it("maps unpaid and other provider statuses to subscription_inactive", async () => {
    const { account, id, customer } = await payingCustomer();
    await deliver(subscriptionEvent("customer.subscription.created", { accountId: id, customer, status: "unpaid", created: now() }));
    expect((await show(account.name)).subscription?.status).toBe("unpaid");
    await expectError(await call("/v1/expirations/SPY", bearer(account.keys[0]!.key)), 403, "subscription_inactive");
  });

  it("applies a redelivered event once", async () => {
    const { account, id, customer } = await payingCustomer();
    const t = now();
    const created = subscriptionEvent("customer.subscription.created", {
      accountId: id,
      customer,
      status: "active",
      created: t - 5,
      id: `evt_dup_${id}`,
    });
    expect(await outcome(await deliver(created))).toBe("applied");
    await deliver(subscriptionEvent("customer.subscription.deleted", { accountId: id, customer, status: "canceled", created: t }));
    // The same event id again (Stripe retries): recognised, the newer cancellation stands.
    expect(await outcome(await deliver(created))).toBe("duplicate");
    expect((await show(account.name)).subscription?.status).toBe("canceled");
  });

  it("never lets an older event overwrite a newer state, whatever the delivery order", async () => {
    const { account, id, customer } = await payingCustomer();
    const t = now();
    expect(
      await outcome(
        await deliver(subscriptionEvent("customer.subscription.updated", { accountId: id, customer, status: "active", created: t })),
      ),
    ).toBe("applied");
    expect(
      await outcome(
        await deliver(
          subscriptionEvent("customer.subscription.updated", { accountId: id, customer, status: "incomplete", created: t - 60 }),
        ),
      ),
    ).toBe("stale");
    expect(await outcome(await deliver(invoiceFailedEvent({ customer, created: t - 30 })))).toBe("stale");
    expect((await show(account.name)).subscription?.status).toBe("active");
    expect((await call("/v1/expirations/SPY", bearer(account.keys[0]!.key))).status).toBe(200);
  });

  it("refuses a bad signature, a stale timestamp and a missing header with 400 invalid_body, changing nothing", async () => {
    const { account, id, customer } = await payingCustomer();
    const payload = subscriptionEvent("customer.subscription.created", { accountId: id, customer, status: "active", created: now() });
    await expectError(await deliver(payload, { secret: "whsec_someone_else_0123456789abcdef" }), 400, "invalid_body");
    // Older than the SDK's tolerance (300 s).
    await expectError(await deliver(payload, { timestamp: now() - 600 }), 400, "invalid_body");
    await expectError(await call("/webhooks/stripe", { method: "POST", body: payload }), 400, "invalid_body");
    // A signed payload altered afterwards.
    const header = await stripe.webhooks.generateTestHeaderStringAsync({
      payload,
      secret: testEnv.STRIPE_WEBHOOK_SECRET ?? "",
      cryptoProvider: Stripe.createSubtleCryptoProvider(),
    });
    const tampered = payload.replace('"active"', '"trialing"');
    await expectError(
      await call("/webhooks/stripe", { method: "POST", headers: { "Stripe-Signature": header }, body: tampered }),
      400,
      "invalid_body",
    );
    expect((await show(account.name)).subscription).toBeNull();
  });

  it("acknowledges event types it does not act on, and events for customers it does not know, changing nothing", async () => {
    const { account } = await payingCustomer();
    const unknownType = JSON.stringify({
      id: `evt_other_${Date.now()}`,
      object: "event",
      created: now(),
      type: "customer.created",
      data: { object: { id: "cus_x", object: "customer" } },
    });
    expect(await outcome(await deliver(unknownType))).toBe("ignored");
    const stranger = subscriptionEvent("customer.subscription.created", {
      customer: "cus_nobody_we_know",
      status: "active",
      created: now(),
    });
    expect(await outcome(await deliver(stranger))).toBe("unknown_account");
    expect((await show(account.name)).subscription).toBeNull();
  });

  it("does not exist without billing configuration", async () => {
    const { customer } = await payingCustomer();
    const res = await callWith({ STRIPE_SECRET_KEY: "", STRIPE_WEBHOOK_SECRET: "", STRIPE_PRICE_BASIC: "" }, "/webhooks/stripe", {
      method: "POST",
      body: subscriptionEvent("customer.subscription.created", { customer, status: "active", created: now() }),
    });
    await expectError(res, 404, "not_found");
  });
});
