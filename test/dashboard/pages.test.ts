import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { admin, bearer, newAccount } from "../support/accounts";
import { page, post, signedInAccount } from "../support/dashboard";
import { stripeTestEndpoint } from "../support/stripe-test-endpoints";
import { call, callWith, expectError, testEnv } from "../support/worker";

const toSignIn = (res: Response) => {
  expect(res.status).toBe(303);
  expect(res.headers.get("Location")).toBe("/dashboard");
};

const requests = async () => (await (await stripeTestEndpoint("/__requests")).json()) as { path: string; body: string }[];

async function deliverSubscription(accountId: number, customer: string, status: string): Promise<void> {
  // Stripe's current state of the subscription, which the webhook retrieves.
  const state = { status, customer, metadata: { account_id: String(accountId) }, price: testEnv.STRIPE_PRICE_BASIC };
  expect((await stripeTestEndpoint(`/__subscriptions/sub_${accountId}`, { method: "POST", body: JSON.stringify(state) })).status).toBe(200);
  const stripe = new Stripe("sk_test_signing_only", { httpClient: Stripe.createFetchHttpClient() });
  const payload = JSON.stringify({
    id: `evt_dash_${accountId}_${Date.now()}`,
    object: "event",
    created: Math.floor(Date.now() / 1000),
    type: "customer.subscription.created",
    data: {
      object: {
        id: `sub_${accountId}`,
        object: "subscription",
        customer,
        status,
        metadata: { account_id: String(accountId) },
        items: { data: [] },
      },
    },
  });
  const header = await stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: testEnv.STRIPE_WEBHOOK_SECRET ?? "",
    cryptoProvider: Stripe.createSubtleCryptoProvider(),
  });
  const res = await call("/webhooks/stripe", { method: "POST", headers: { "Stripe-Signature": header }, body: payload });
  expect(res.status).toBe(200);
}

describe("dashboard sessions", () => {
  it("opens pages with a live session, with security headers and no caching", async () => {
    const user = await signedInAccount();
    const res = await page(user, "/dashboard/keys");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });

  it("sends idle, expired, revoked, malformed and foreign sessions to the sign-in page", async () => {
    toSignIn(await page(await signedInAccount({ lastSeenAgoMs: 61 * 60_000 }), "/dashboard/keys"));
    toSignIn(await page(await signedInAccount({ expiresInMs: -1_000 }), "/dashboard/keys"));
    toSignIn(await page(await signedInAccount({ revoked: true }), "/dashboard/keys"));
    toSignIn(await page({ cookie: "__Host-ods_session=not-a-token" }, "/dashboard/billing"));
    toSignIn(await page({ cookie: `__Host-ods_session=ods_sess_${"A".repeat(43)}` }, "/dashboard/keys"));
    // The sign-in page itself answers 200 without a session.
    const signIn = await page({ cookie: "" }, "/dashboard");
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain("<title>Sign in ·");
  });

  it("never opens the dashboard with an API key, and refuses the session token on the API", async () => {
    const account = await newAccount({ status: "active" });
    const res = await call("/dashboard/keys", { ...bearer(account.keys[0]!.key), redirect: "manual" });
    toSignIn(res);
    const user = await signedInAccount({ status: "active" });
    const token = user.cookie.split("=")[1]!;
    await expectError(await call("/v1/usage", bearer(token)), 403, "wrong_credential_type");
  });

  it("revokes the session at sign-out", async () => {
    const user = await signedInAccount();
    const out = await post(user, "/dashboard/logout");
    toSignIn(out);
    expect(out.headers.get("Set-Cookie")).toMatch(/^__Host-ods_session=;.*Max-Age=0/);
    toSignIn(await page(user, "/dashboard/keys"));
  });

  it("says sign-in is not configured without an issuer", async () => {
    const res = await callWith({ OIDC_ISSUER: "", OIDC_CLIENT_ID: "", OIDC_CLIENT_SECRET: "" }, "/dashboard/login");
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("Single sign-on is not configured");
  });
});

describe("dashboard forms", () => {
  it("refuses a form from another origin or without one, changing nothing", async () => {
    const user = await signedInAccount({ status: "active" });
    for (const origin of ["https://evil.example", null]) {
      const res = await post(user, "/dashboard/keys", origin);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain("nothing was changed");
    }
    const keys = await admin.listKeys(user.name);
    expect(keys.body).toHaveLength(0);
  });

  it("shows a new key once (201, not cached) and enforces the five-key cap with 409", async () => {
    const user = await signedInAccount({ status: "active", keys: 4 });
    const fifth = await post(user, "/dashboard/keys");
    expect(fifth.status).toBe(201);
    expect(fifth.headers.get("Cache-Control")).toBe("no-store");
    const html = await fifth.text();
    const key = /value="(ods_live_[0-9A-Za-z]{49})"/.exec(html)?.[1];
    expect(key).toBeDefined();
    expect((await call("/v1/auth/verify", bearer(key!))).status).toBe(200);
    expect(await (await page(user, "/dashboard/keys")).text()).not.toContain(key!);

    const sixth = await post(user, "/dashboard/keys");
    expect(sixth.status).toBe(409);
    expect(await sixth.text()).toContain("at most 5 active keys");
    expect((await admin.listKeys(user.name)).body).toHaveLength(5);
  });

  it("revokes only the account's own keys", async () => {
    const owner = await signedInAccount({ status: "active", keys: 1 });
    const other = await signedInAccount({ status: "active" });
    const keyId = owner.keys[0]!.id;
    for (const path of [`/dashboard/keys/${keyId}/revoke`, "/dashboard/keys/99999999/revoke", "/dashboard/keys/abc/revoke"]) {
      expect((await post(other, path)).status).toBe(404);
      expect((await page(other, path)).status).toBe(404);
    }
    expect((await call("/v1/auth/verify", bearer(owner.keys[0]!.key))).status).toBe(200);
    const confirm = await page(owner, `/dashboard/keys/${keyId}/revoke`);
    expect(await confirm.text()).toContain("Revoke key");
    const revoked = await post(owner, `/dashboard/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(303);
    await expectError(await call("/v1/auth/verify", bearer(owner.keys[0]!.key)), 401, "invalid_api_key");
  });
});

describe("trial", () => {
  it("starts once per account; a second start and a paying account are refused", async () => {
    const user = await signedInAccount({ keys: 1 });
    await expectError(await call("/v1/expirations/SPY", bearer(user.keys[0]!.key)), 403, "subscription_required");
    expect((await post(user, "/dashboard/trial")).status).toBe(303);
    expect((await call("/v1/expirations/SPY", bearer(user.keys[0]!.key))).status).toBe(200);
    const overview = await (await page(user, "/dashboard")).text();
    expect(overview).toMatch(/Trial days left<\/dt>\s*<dd>14<\/dd>/);
    const again = await post(user, "/dashboard/trial");
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already used its free trial");

    const paying = await signedInAccount({ status: "active" });
    expect((await post(paying, "/dashboard/trial")).status).toBe(409);
  });

  it("after the trial ends, data endpoints answer trial_ended and the keys stay listed", async () => {
    const user = await signedInAccount({ keys: 2 });
    expect((await post(user, "/dashboard/trial")).status).toBe(303);
    await admin.setSubscription(user.name, { status: "trialing", trialEnded: true });
    await expectError(await call("/v1/expirations/SPY", bearer(user.keys[0]!.key)), 403, "trial_ended");
    const keys = await (await page(user, "/dashboard/keys")).text();
    for (const k of user.keys) expect(keys).toContain(k.prefix);
    expect(await (await page(user, "/dashboard")).text()).toContain("trial_ended");
    expect((await post(user, "/dashboard/trial")).status).toBe(409);
  });
});

describe("billing pages", () => {
  it("sends a new customer to Checkout for Basic, with the account in the subscription's metadata", async () => {
    const user = await signedInAccount();
    const billing = await (await page(user, "/dashboard/billing")).text();
    expect(billing).toContain("Subscribe to Basic");
    expect(billing).not.toContain("Manage billing");
    const res = await post(user, "/dashboard/billing/checkout");
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    const sent = (await requests()).filter((r) => r.path === "/v1/checkout/sessions").at(-1);
    const form = new URLSearchParams(sent?.body ?? "");
    expect(form.get("mode")).toBe("subscription");
    expect(form.get("line_items[0][price]")).toBe(testEnv.STRIPE_PRICE_BASIC);
    expect(form.get("subscription_data[metadata][account_id]")).toBe(String(user.id));
    expect(form.get("success_url")).toBe("https://api.test/dashboard/billing?checkout=success");
    // Without a customer there is no portal to open.
    expect((await post(user, "/dashboard/billing/portal")).status).toBe(409);
  });

  it("sends a subscriber to the customer portal of their own customer", async () => {
    const user = await signedInAccount();
    const customer = `cus_dash${user.id}`;
    await deliverSubscription(user.id, customer, "active");
    const billing = await (await page(user, "/dashboard/billing")).text();
    expect(billing).toContain("Manage billing");
    expect(billing).not.toContain("Subscribe to Basic");
    const res = await post(user, "/dashboard/billing/portal");
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    const sent = (await requests()).filter((r) => r.path === "/v1/billing_portal/sessions").at(-1);
    expect(new URLSearchParams(sent?.body ?? "").get("customer")).toBe(customer);
  });

  it("refuses a second Checkout while the account has a live subscription, with a page", async () => {
    for (const status of ["active", "past_due", "incomplete"]) {
      const user = await signedInAccount();
      await deliverSubscription(user.id, `cus_live${user.id}`, status);
      expect(await (await page(user, "/dashboard/billing")).text()).not.toContain("Subscribe to Basic");
      const before = (await requests()).filter((r) => r.path === "/v1/checkout/sessions").length;
      const res = await post(user, "/dashboard/billing/checkout");
      expect(res.status, status).toBe(409);
      expect(await res.text()).toContain("already has a subscription");
      expect((await requests()).filter((r) => r.path === "/v1/checkout/sessions").length).toBe(before);
    }
    // An ended subscription does not stand in the way.
    const user = await signedInAccount();
    await deliverSubscription(user.id, `cus_ended${user.id}`, "canceled");
    expect((await post(user, "/dashboard/billing/checkout")).status).toBe(303);
  });

  it("shows a page, not a 500, when the payment provider refuses the call", async () => {
    const user = await signedInAccount();
    // The replay server answers 401 to any other key, as Stripe does.
    const res = await callWith({ STRIPE_SECRET_KEY: "sk_test_revoked_key_000000" }, "/dashboard/billing/checkout", {
      method: "POST",
      headers: { Cookie: user.cookie, Origin: "https://api.test", "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(502);
    expect(await res.text()).toContain("nothing was charged");
  });

  it("says billing is not configured without Stripe settings", async () => {
    const user = await signedInAccount();
    const res = await callWith({ STRIPE_SECRET_KEY: "", STRIPE_WEBHOOK_SECRET: "", STRIPE_PRICE_BASIC: "" }, "/dashboard/billing", {
      headers: { Cookie: user.cookie },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Billing is not configured");
  });
});

describe("the three ways to use a new key", () => {
  const textarea = (html: string, id: string) =>
    (new RegExp(`<textarea id="${id}"[^>]*>([\\s\\S]*?)</textarea>`).exec(html)?.[1] ?? "").replace(/&quot;/g, '"').replace(/&amp;/g, "&");

  it("shows a curl line, the SDK snippet and the MCP configuration with this address filled in (the key in the first two, the MCP one's in the environment), each with a Copy button", async () => {
    const user = await signedInAccount({ status: "active" });
    const html = await (await post(user, "/dashboard/keys")).text();
    const key = /value="(ods_live_[0-9A-Za-z]{49})"/.exec(html)![1]!;
    expect(textarea(html, "use-curl")).toBe(
      `curl --compressed -H "Authorization: Bearer ${key}" "https://api.test/v1/chain/SPY?maxDte=14&limit=5"`,
    );
    expect(textarea(html, "use-sdk")).toContain(`createClient({ baseUrl: "https://api.test", apiKey: "${key}" })`);
    expect(textarea(html, "use-sdk")).toContain('from "@options-data-service/sdk"');
    const config = JSON.parse(textarea(html, "use-mcp")) as {
      mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
    };
    // A project's .mcp.json is committed: the key is not in it, the client expands it from the environment.
    expect(Object.values(config.mcpServers)[0]).toEqual({
      type: "http",
      url: "https://api.test/mcp",
      headers: { Authorization: "Bearer ${ODS_API_KEY}" },
    });
    expect(textarea(html, "use-mcp")).not.toContain(key);
    expect(textarea(html, "use-mcp-key")).toBe(`export ODS_API_KEY="${key}"`);
    expect(textarea(html, "use-stream")).toBe(
      `curl -N -H "Authorization: Bearer ${key}" -H "Accept: text/event-stream" "https://api.test/v1/stream?channel=flow&tickers=SPY,QQQ&minPremium=50000"`,
    );
    const [websocat, subscribe] = textarea(html, "use-websocket").split("\n");
    expect(websocat).toBe(`websocat -H "Authorization: Bearer ${key}" "wss://api.test/v1/stream"`);
    expect(JSON.parse(subscribe!)).toMatchObject({ type: "subscribe", channel: "flow" });
    for (const id of ["created-key", "use-curl", "use-sdk", "use-mcp", "use-mcp-key", "use-stream", "use-websocket"]) {
      expect(html).toContain(`data-copy="${id}"`);
    }
    // Shown once: the list page afterwards has none of them.
    const later = await (await page(user, "/dashboard/keys")).text();
    expect(later).not.toContain("use-mcp");
  });
});
