import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { database, useNeonEndpoint } from "../../src/db/client";
import { billingEvents, providerSubscriptions, subscriptions } from "../../src/db/schema";
import { PAST_DUE_GRACE_DAYS } from "../../src/domain/entitlement";
import { stripeEvent } from "../../devkit/stripe/stripe-event";
import type { SubscriptionState } from "../support/stripe-server";
import { stripeTestEndpoint } from "../support/stripe-test-endpoints";
import { admin, bodyOf, bearer, newAccount, type TestAccount } from "../support/accounts";
import { call, callWith, expectError, testEnv } from "../support/worker";

const stripe = new Stripe("sk_test_signing_only", { httpClient: Stripe.createFetchHttpClient() });
const DAY = 86_400;

const show = async (name: string) => bodyOf(await admin.showAccount(name));

const controlDb = () => {
  useNeonEndpoint(testEnv.NEON_HTTP_ENDPOINT);
  return database(testEnv.CONTROL_DATABASE_URL);
};

/** Sets the subscription's current state on the Stripe replay server (what `GET /v1/subscriptions/:id` answers). */
async function stripeHas(subscriptionId: string, state: SubscriptionState): Promise<void> {
  const res = await stripeTestEndpoint(`/__subscriptions/${subscriptionId}`, { method: "POST", body: JSON.stringify(state) });
  expect(res.status).toBe(200);
}

let eventCounter = 0;
const eventId = (): string => `evt_test_${Date.now()}_${++eventCounter}`;

function envelope(type: string, created: number, object: unknown, id = eventId()): string {
  return stripeEvent(type, created, object, id);
}

/** A subscription event as Stripe sends it: `data.object` is the subscription at event time (maybe no longer true). */
function subscriptionEvent(
  type: string,
  o: { subscription: string; customer: string; status: string; created: number; accountId?: number; eventId?: string },
): string {
  return envelope(
    type,
    o.created,
    {
      id: o.subscription,
      object: "subscription",
      customer: o.customer,
      status: o.status,
      metadata: o.accountId === undefined ? {} : { account_id: String(o.accountId) },
      items: {
        object: "list",
        data: [{ id: "si_test", object: "subscription_item", current_period_end: o.created + 30 * DAY, price: { id: "price_test_basic" } }],
      },
    },
    o.eventId ?? eventId(),
  );
}

/** An invoice event (API 2025+: the subscription under `parent.subscription_details`). */
function invoiceEvent(
  type: string,
  o: { subscription: string | null; customer: string; created: number; billingReason?: string; eventId?: string },
): string {
  return envelope(
    type,
    o.created,
    {
      id: `in_test_${++eventCounter}`,
      object: "invoice",
      customer: o.customer,
      status: "open",
      billing_reason: o.billingReason ?? "subscription_cycle",
      parent: o.subscription
        ? { type: "subscription_details", subscription_details: { subscription: o.subscription, metadata: {} } }
        : null,
    },
    o.eventId ?? eventId(),
  );
}

/** Delivers a payload signed by the SDK's own test-header helper (optionally with another secret or time). */
async function deliver(
  payload: string,
  options: { secret?: string; timestamp?: number; env?: Parameters<typeof callWith>[0] } = {},
): Promise<Response> {
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: options.secret ?? testEnv.STRIPE_WEBHOOK_SECRET ?? "",
    timestamp: options.timestamp,
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  const init = { method: "POST", headers: { "Stripe-Signature": header, "Content-Type": "application/json" }, body: payload };
  return options.env ? callWith(options.env, "/webhooks/stripe", init) : call("/webhooks/stripe", init);
}

async function outcome(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { outcome: string }).outcome;
}

const now = () => Math.floor(Date.now() / 1000);

interface Customer {
  account: TestAccount;
  id: number;
  customer: string;
  subscription: string;
  key: string;
}

async function payingCustomer(): Promise<Customer> {
  const account = await newAccount({ status: "none" });
  const { id } = await show(account.name);
  const suffix = account.name.replace(/[^0-9a-z]/gi, "");
  return { account, id, customer: `cus_${suffix}`, subscription: `sub_${suffix}`, key: account.keys[0]!.key };
}

/** Stripe's current state of the customer's subscription (Basic, our metadata), unless overridden. */
const current = (c: Customer, status: string, extra: Partial<SubscriptionState> = {}): SubscriptionState => ({
  status,
  customer: c.customer,
  metadata: { account_id: String(c.id) },
  price: testEnv.STRIPE_PRICE_BASIC,
  current_period_end: now() + 30 * DAY,
  ...extra,
});

const dataStatus = async (key: string) => (await call("/v1/expirations/SPY", bearer(key))).status;

describe("POST /webhooks/stripe", () => {
  it("stores the subscription as Stripe reports it now: created, past_due, active again, canceled", async () => {
    const c = await payingCustomer();
    await expectError(await call("/v1/expirations/SPY", bearer(c.key)), 403, "subscription_required");
    const t = now();
    await stripeHas(c.subscription, current(c, "active"));
    const created = subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "active", created: t - 30 });
    expect(await outcome(await deliver(created))).toBe("applied");
    expect((await show(c.account.name)).subscription).toMatchObject({ plan: "basic", status: "active" });
    expect(await dataStatus(c.key)).toBe(200);

    await stripeHas(c.subscription, current(c, "past_due"));
    expect(await outcome(await deliver(invoiceEvent("invoice.payment_failed", { ...c, created: t - 20 })))).toBe("applied");
    expect((await show(c.account.name)).subscription?.status).toBe("past_due");
    expect(await dataStatus(c.key)).toBe(200);

    await stripeHas(c.subscription, current(c, "active"));
    expect(await outcome(await deliver(invoiceEvent("invoice.paid", { ...c, created: t - 10 })))).toBe("applied");
    expect((await show(c.account.name)).subscription?.status).toBe("active");

    await stripeHas(c.subscription, current(c, "canceled"));
    const deleted = subscriptionEvent("customer.subscription.deleted", { ...c, accountId: c.id, status: "canceled", created: t });
    expect(await outcome(await deliver(deleted))).toBe("applied");
    expect((await show(c.account.name)).subscription?.status).toBe("canceled");
    await expectError(await call("/v1/expirations/SPY", bearer(c.key)), 403, "subscription_inactive");
  });

  it("keeps a paying customer active when two same-second events arrive in the other order", async () => {
    const c = await payingCustomer();
    const t = now();
    // Checkout: created (incomplete) and updated (active) in the same second, delivered updated first.
    await stripeHas(c.subscription, current(c, "active"));
    const updated = subscriptionEvent("customer.subscription.updated", { ...c, accountId: c.id, status: "active", created: t });
    const created = subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "incomplete", created: t });
    expect(await outcome(await deliver(updated))).toBe("applied");
    expect(await outcome(await deliver(created))).toBe("applied");
    expect((await show(c.account.name)).subscription?.status).toBe("active");
    expect(await dataStatus(c.key)).toBe(200);
  });

  it("does not give a cancelled customer access back for a payment_failed delivered after the deletion", async () => {
    const c = await payingCustomer();
    const t = now();
    await stripeHas(c.subscription, current(c, "canceled"));
    const deleted = subscriptionEvent("customer.subscription.deleted", { ...c, accountId: c.id, status: "canceled", created: t - 5 });
    expect(await outcome(await deliver(deleted))).toBe("applied");
    // Created later than the deletion, and in the same second.
    for (const created of [t, t - 5]) {
      expect(await outcome(await deliver(invoiceEvent("invoice.payment_failed", { ...c, created })))).toBe("applied");
    }
    expect((await show(c.account.name)).subscription?.status).toBe("canceled");
    await expectError(await call("/v1/expirations/SPY", bearer(c.key)), 403, "subscription_inactive");
  });

  it("does not set past_due for a failed invoice that leaves the subscription active, nor for an invoice of no subscription", async () => {
    const c = await payingCustomer();
    await stripeHas(c.subscription, current(c, "active"));
    await deliver(subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "active", created: now() }));
    // A failed proration invoice of a plan change: the subscription stays active.
    const proration = invoiceEvent("invoice.payment_failed", { ...c, created: now(), billingReason: "subscription_update" });
    expect(await outcome(await deliver(proration))).toBe("applied");
    const oneOff = invoiceEvent("invoice.payment_failed", { ...c, subscription: null, created: now(), billingReason: "manual" });
    expect(await outcome(await deliver(oneOff))).toBe("ignored");
    expect((await show(c.account.name)).subscription?.status).toBe("active");
    expect(await dataStatus(c.key)).toBe(200);
  });

  it("grants nothing for a subscription at another price, and a second subscription does not replace a live Basic one", async () => {
    const other = await payingCustomer();
    await stripeHas(other.subscription, current(other, "active", { price: "price_test_enterprise" }));
    const foreign = subscriptionEvent("customer.subscription.created", { ...other, accountId: other.id, status: "active", created: now() });
    expect(await outcome(await deliver(foreign))).toBe("ignored");
    expect((await show(other.account.name)).subscription).toBeNull();
    await expectError(await call("/v1/expirations/SPY", bearer(other.key)), 403, "subscription_required");

    const c = await payingCustomer();
    await stripeHas(c.subscription, current(c, "active"));
    await deliver(subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "active", created: now() }));
    // A second subscription of the same customer (no metadata: found by customer), abandoned in Checkout.
    const second = `${c.subscription}_2`;
    await stripeHas(second, current(c, "incomplete_expired", { metadata: {} }));
    const expired = subscriptionEvent("customer.subscription.updated", {
      ...c,
      subscription: second,
      status: "incomplete_expired",
      created: now(),
    });
    expect(await outcome(await deliver(expired))).toBe("applied");
    expect((await show(c.account.name)).subscription?.status).toBe("active");
    const rows = await controlDb().select().from(providerSubscriptions).where(eq(providerSubscriptions.accountId, c.id));
    expect(rows.map((r) => [r.subscriptionId, r.status]).sort()).toEqual([
      [c.subscription, "active"],
      [second, "incomplete_expired"],
    ]);
    const [row] = await controlDb().select().from(subscriptions).where(eq(subscriptions.accountId, c.id));
    expect(row?.providerSubscriptionId).toBe(c.subscription);

    // The Basic subscription moved to another price: it no longer grants Basic.
    await stripeHas(c.subscription, current(c, "active", { price: "price_test_enterprise" }));
    const moved = subscriptionEvent("customer.subscription.updated", { ...c, accountId: c.id, status: "active", created: now() });
    expect(await outcome(await deliver(moved))).toBe("ignored");
    await expectError(await call("/v1/expirations/SPY", bearer(c.key)), 403, "subscription_inactive");
  });

  it("does not consume an event of an unknown account: 409, not recorded, applied when Stripe delivers it again", async () => {
    const c = await payingCustomer();
    // A subscription made outside our Checkout: no metadata, a customer no account knows.
    await stripeHas(c.subscription, current(c, "active", { metadata: {} }));
    const payload = subscriptionEvent("customer.subscription.created", { ...c, status: "active", created: now() });
    const id = (JSON.parse(payload) as { id: string }).id;
    await expectError(await deliver(payload), 409, "conflict");
    expect(await controlDb().select().from(billingEvents).where(eq(billingEvents.eventId, id))).toEqual([]);
    expect((await show(c.account.name)).subscription).toBeNull();
    // Support links it to the account in Stripe; the retry applies it.
    await stripeHas(c.subscription, current(c, "active"));
    expect(await outcome(await deliver(payload))).toBe("applied");
    expect(await outcome(await deliver(payload))).toBe("duplicate");
    expect(await dataStatus(c.key)).toBe(200);
  });

  it("does not consume an event while Stripe cannot be reached: 503 with Retry-After, applied on the retry", async () => {
    const c = await payingCustomer();
    await stripeHas(c.subscription, current(c, "active"));
    const payload = subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "active", created: now() });
    const down = await deliver(payload, { env: { STRIPE_API_URL: "http://127.0.0.1:9" } });
    expect(down.headers.get("Retry-After")).toBe("60");
    await expectError(down, 503, "service_unavailable");
    expect((await show(c.account.name)).subscription).toBeNull();
    expect(await outcome(await deliver(payload))).toBe("applied");
    expect((await show(c.account.name)).subscription?.status).toBe("active");
  });

  it("applies a redelivered event once", async () => {
    const c = await payingCustomer();
    const t = now();
    await stripeHas(c.subscription, current(c, "active"));
    const created = subscriptionEvent("customer.subscription.created", {
      ...c,
      accountId: c.id,
      status: "active",
      created: t - 5,
      eventId: `evt_dup_${c.id}`,
    });
    expect(await outcome(await deliver(created))).toBe("applied");
    await stripeHas(c.subscription, current(c, "canceled"));
    await deliver(subscriptionEvent("customer.subscription.deleted", { ...c, accountId: c.id, status: "canceled", created: t }));
    expect(await outcome(await deliver(created))).toBe("duplicate");
    expect((await show(c.account.name)).subscription?.status).toBe("canceled");
  });

  it("maps unpaid and other provider statuses to subscription_inactive", async () => {
    const c = await payingCustomer();
    await stripeHas(c.subscription, current(c, "unpaid"));
    await deliver(subscriptionEvent("customer.subscription.updated", { ...c, accountId: c.id, status: "unpaid", created: now() }));
    expect((await show(c.account.name)).subscription?.status).toBe("unpaid");
    await expectError(await call("/v1/expirations/SPY", bearer(c.key)), 403, "subscription_inactive");
  });

  it("ends the past_due grace 7 days after the first transition into past_due, however far Stripe moves the period end", async () => {
    const c = await payingCustomer();
    const t = now();
    const pastDueSince = async () =>
      (await controlDb().select().from(subscriptions).where(eq(subscriptions.accountId, c.id)))[0]?.pastDueSince;
    await stripeHas(c.subscription, current(c, "active"));
    await deliver(subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "active", created: t - 40 * DAY }));

    // The renewal failed 8 days ago; Stripe already moved the period end 30 days past it ("leave past-due").
    const failedAt = t - (PAST_DUE_GRACE_DAYS + 1) * DAY;
    await stripeHas(c.subscription, current(c, "past_due", { current_period_end: failedAt + 30 * DAY }));
    expect(await outcome(await deliver(invoiceEvent("invoice.payment_failed", { ...c, created: failedAt })))).toBe("applied");
    expect(Date.parse(String(await pastDueSince()))).toBe(failedAt * 1000);
    await expectError(await call("/v1/expirations/SPY", bearer(c.key)), 403, "subscription_inactive");

    // A later retry and a new period: still the same spell, the grace does not start again.
    await stripeHas(c.subscription, current(c, "past_due", { current_period_end: t + 30 * DAY }));
    expect(await outcome(await deliver(invoiceEvent("invoice.payment_failed", { ...c, created: t })))).toBe("applied");
    expect(Date.parse(String(await pastDueSince()))).toBe(failedAt * 1000);
    await expectError(await call("/v1/expirations/SPY", bearer(c.key)), 403, "subscription_inactive");

    // Paid: the spell ends; a new failure starts a new grace.
    await stripeHas(c.subscription, current(c, "active"));
    await deliver(invoiceEvent("invoice.paid", { ...c, created: t }));
    expect(await pastDueSince()).toBeNull();
    expect(await dataStatus(c.key)).toBe(200);
    await stripeHas(c.subscription, current(c, "past_due"));
    await deliver(subscriptionEvent("customer.subscription.updated", { ...c, accountId: c.id, status: "past_due", created: t }));
    expect(Date.parse(String(await pastDueSince()))).toBe(t * 1000);
    expect(await dataStatus(c.key)).toBe(200);
  });

  it("refuses a bad signature, a stale timestamp and a missing header with 400 invalid_body, changing nothing", async () => {
    const c = await payingCustomer();
    await stripeHas(c.subscription, current(c, "active"));
    const payload = subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "active", created: now() });
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
    expect((await show(c.account.name)).subscription).toBeNull();
  });

  it("acknowledges event types it does not act on, and subscriptions Stripe does not have, changing nothing", async () => {
    const c = await payingCustomer();
    const unknownType = envelope("customer.created", now(), { id: "cus_x", object: "customer" });
    expect(await outcome(await deliver(unknownType))).toBe("ignored");
    // No state set on the replay server: Stripe answers 404 resource_missing.
    const missing = subscriptionEvent("customer.subscription.created", { ...c, accountId: c.id, status: "active", created: now() });
    expect(await outcome(await deliver(missing))).toBe("ignored");
    expect((await show(c.account.name)).subscription).toBeNull();
  });

  it("does not exist without billing configuration", async () => {
    const c = await payingCustomer();
    const res = await callWith({ STRIPE_SECRET_KEY: "", STRIPE_WEBHOOK_SECRET: "", STRIPE_PRICE_BASIC: "" }, "/webhooks/stripe", {
      method: "POST",
      body: subscriptionEvent("customer.subscription.created", { ...c, status: "active", created: now() }),
    });
    await expectError(res, 404, "not_found");
  });
});
