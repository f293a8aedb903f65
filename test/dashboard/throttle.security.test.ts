import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { randomBase62 } from "../../src/domain/api-key";
import { sha256Hex } from "../../src/crypto/sha256";
import { newSessionToken } from "../../src/dashboard/sessions";
import { admin } from "../support/accounts";
import { page, post, SESSION_COOKIE, sessionSecrets, signedInAccount } from "../support/dashboard";
import { controlSql } from "../support/market-db";
import { call, callWith, expectError, testEnv } from "../support/worker";
import { countedAlias } from "../support/counted-database";
import { freshRateWindow } from "../support/clock";
import { stripeTestEndpoint } from "../support/stripe-test-endpoints";

/** Per-client budget of /dashboard/* and of the webhook (wrangler.toml DASHBOARD_RATE_LIMITER). */
const CLIENT_LIMIT = 300;
/** Per-account budget of signed-in actions (DASHBOARD_ACTION_LIMITER). */
const ACTION_LIMIT = 10;

/**
 * The control database under a name of its own: the local endpoint counts round trips per
 * database name, so this test's control-plane queries are counted apart from every other's.
 */
function countedControl(): { env: { CONTROL_DATABASE_URL: string }; trips: () => Promise<number> } {
  const { url, trips } = countedAlias(testEnv.CONTROL_DATABASE_URL, "control");
  return { env: { CONTROL_DATABASE_URL: url }, trips };
}

/** A made-up but well-formed session token: the current shape, or the shape issued before tokens carried a MAC. */
const forged = (i: number) => (i % 2 === 0 ? `ods_sess_${randomBase62(75)}` : `ods_sess_${randomBase62(43)}`);

describe("dashboard per-client limit", () => {
  it("answers thousands of forged session cookies from one client with 429 after the limit, and never asks the control database", async () => {
    await freshRateWindow();
    const { env, trips } = countedControl();
    const client = { "CF-Connecting-IP": "2001:db8:da5b:1::7" };
    const paths = ["/dashboard", "/dashboard/keys", "/dashboard/billing", "/dashboard/keys/1/revoke"];
    const statuses: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const res = await callWith(env, paths[i % paths.length]!, {
        headers: { ...client, Cookie: `${SESSION_COOKIE}=${forged(i)}` },
        redirect: "manual",
      });
      statuses.push(res.status);
      if (res.status === 429 && statuses.filter((s) => s === 429).length === 1) {
        expect(res.headers.get("Retry-After")).toBe("60");
        expect(res.headers.get("Content-Type")).toContain("text/html");
        expect(await res.text()).toContain("Too many requests");
      } else await res.body?.cancel();
    }
    // The first CLIENT_LIMIT pass (the sign-in page or a redirect to it), everything after is refused.
    expect(statuses.slice(0, CLIENT_LIMIT).every((s) => s === 200 || s === 303)).toBe(true);
    expect(statuses.slice(CLIENT_LIMIT).every((s) => s === 429)).toBe(true);
    // A forged token fails its MAC before any query: no round trip at all, admitted or not.
    expect(await trips()).toBe(0);
    // Another client is not affected.
    const other = await callWith(env, "/dashboard", { headers: { "CF-Connecting-IP": "2001:db8:da5b:2::7" } });
    expect(other.status).toBe(200);
  }, 120_000);

  it("counts pages, assets, sign-in and sign-out alike, and a signed-in client's queries stay bounded by the limit", async () => {
    await freshRateWindow();
    const user = await signedInAccount({ status: "active" });
    // What one keys page costs, measured apart.
    const single = countedControl();
    expect((await callWith(single.env, "/dashboard/keys", { headers: { Cookie: user.cookie } })).status).toBe(200);
    const perPage = await single.trips();
    const { env, trips } = countedControl();
    const headers = { "CF-Connecting-IP": "198.18.77.1", Cookie: user.cookie };
    const statuses: number[] = [];
    for (let i = 0; i < CLIENT_LIMIT + 50; i++) {
      const path = ["/dashboard/keys", "/dashboard/assets/dashboard.css", "/dashboard/assets/dashboard.js"][i % 3]!;
      const res = await callWith(env, path, { headers, redirect: "manual" });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses.slice(0, CLIENT_LIMIT).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(CLIENT_LIMIT).every((s) => s === 429)).toBe(true);
    const admittedPages = Math.ceil(CLIENT_LIMIT / 3);
    const spent = await trips();
    // Admitted pages cost what a page costs; refused requests cost nothing.
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(admittedPages * perPage);
    for (const [path, method] of [
      ["/dashboard/login", "GET"],
      ["/dashboard/callback?code=x&state=y", "GET"],
      ["/dashboard/logout", "POST"],
    ] as const) {
      const res = await callWith(env, path, { method, headers: { ...headers, Origin: "https://api.test" }, redirect: "manual" });
      expect(res.status, path).toBe(429);
    }
    expect(await trips()).toBe(spent);
    // The session itself is intact: the refusal was the client's, not the session's.
    expect((await page(user, "/dashboard/keys")).status).toBe(200);
  }, 60_000);
});

describe("dashboard session tokens", () => {
  it("opens a page for a signed token, and turns away a stored session whose token carries no valid MAC without a query", async () => {
    const { env, trips } = countedControl();
    const user = await signedInAccount();
    const ok = await callWith(env, "/dashboard/keys", { headers: { Cookie: user.cookie }, redirect: "manual" });
    expect(ok.status).toBe(200);
    const afterLive = await trips();
    expect(afterLive).toBeGreaterThan(0);

    // A session opened before tokens carried a MAC (43 random characters), still live in the table…
    const legacy = `ods_sess_${randomBase62(43)}`;
    // …and a current-shape token whose MAC was made with another key.
    const otherKey = await newSessionToken(["another-session-secret-0123456789abcdef"]);
    const tampered = user.cookie.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    for (const token of [legacy, otherKey]) {
      await controlSql().query(
        "insert into dashboard_sessions (account_id, token_hash, last_seen_at, expires_at) values ($1, $2, now(), now() + interval '1 hour')",
        [user.id, await sha256Hex(token)],
      );
    }
    for (const cookie of [`${SESSION_COOKIE}=${legacy}`, `${SESSION_COOKIE}=${otherKey}`, tampered]) {
      const res = await callWith(env, "/dashboard/keys", { headers: { Cookie: cookie }, redirect: "manual" });
      expect(res.status).toBe(303);
      expect(res.headers.get("Location")).toBe("/dashboard");
      expect(res.headers.get("Set-Cookie")).toMatch(/^__Host-ods_session=;.*Max-Age=0; Path=\/;.*Secure/);
    }
    expect(await trips()).toBe(afterLive);
  });

  it("reads the session only from the __Host- cookie on https: a bare ods_session cookie (plantable by a subdomain) opens nothing", async () => {
    const user = await signedInAccount();
    const token = user.cookie.split("=")[1]!;
    const bare = await page({ cookie: `ods_session=${token}` }, "/dashboard/keys");
    expect(bare.status).toBe(303);
    expect(bare.headers.get("Location")).toBe("/dashboard");
    expect((await page(user, "/dashboard/keys")).status).toBe(200);
  });

  it("verifies with every SESSION_SECRET and signs with the first (rotation), and refuses a short one", async () => {
    const [current] = sessionSecrets();
    const user = await signedInAccount();
    const next = "next-session-secret-0123456789abcdef01234";
    const rotated = await callWith({ SESSION_SECRET: `${next},${current}` }, "/dashboard/keys", {
      headers: { Cookie: user.cookie },
      redirect: "manual",
    });
    expect(rotated.status).toBe(200);
    const retired = await callWith({ SESSION_SECRET: next }, "/dashboard/keys", { headers: { Cookie: user.cookie }, redirect: "manual" });
    expect(retired.status).toBe(303);
    await expectError(await callWith({ SESSION_SECRET: "short" }, "/health"), 500, "internal_error");
    await expectError(await callWith({ SESSION_SECRET: " , " }, "/health"), 500, "internal_error");
  });
});

describe("dashboard per-account limit of signed-in actions", () => {
  it("refuses Checkout, portal, trial and key changes past the account's budget, from any address, and spares other accounts", async () => {
    await freshRateWindow(10_000);
    const user = await signedInAccount({ status: "none" });
    const checkouts = async () =>
      ((await (await stripeTestEndpoint("/__requests")).json()) as { path: string; body: string }[]).filter(
        (r) =>
          r.path === "/v1/checkout/sessions" &&
          new URLSearchParams(r.body).get("subscription_data[metadata][account_id]") === String(user.id),
      ).length;
    // Each post comes from another address (test/support/worker.ts): only the account's budget can refuse it.
    for (let i = 0; i < ACTION_LIMIT - 2; i++) expect((await post(user, "/dashboard/billing/checkout")).status).toBe(303);
    expect((await post(user, "/dashboard/keys")).status).toBe(201);
    expect((await post(user, "/dashboard/billing/portal")).status).toBe(409);
    for (const path of [
      "/dashboard/billing/checkout",
      "/dashboard/billing/portal",
      "/dashboard/keys",
      "/dashboard/trial",
      "/dashboard/keys/1/revoke",
    ]) {
      const res = await post(user, path);
      expect(res.status, path).toBe(429);
      expect(res.headers.get("Retry-After")).toBe("60");
      expect(await res.text()).toContain("nothing was changed");
    }
    expect(await checkouts()).toBe(ACTION_LIMIT - 2);
    expect((await admin.listKeys(user.name)).body).toHaveLength(1);
    // Reading pages is not an action.
    expect((await page(user, "/dashboard/keys")).status).toBe(200);
    const other = await signedInAccount();
    expect((await post(other, "/dashboard/billing/checkout")).status).toBe(303);
  });
});

describe("POST /webhooks/stripe in front of the handler", () => {
  const event = (id: string) => JSON.stringify({ id, object: "event", type: "customer.created", created: 1, data: { object: {} } });

  it("is limited per client: 429 rate_limited after the limit, before the signature is read", async () => {
    await freshRateWindow();
    const client = { "CF-Connecting-IP": "2001:db8:da5b:3::1", "Stripe-Signature": "t=1,v1=00" };
    const statuses: number[] = [];
    for (let i = 0; i < CLIENT_LIMIT + 5; i++) {
      const res = await call("/webhooks/stripe", { method: "POST", headers: client, body: event(`evt_forged_${i}`) });
      statuses.push(res.status);
      if (res.status !== 429) await res.body?.cancel();
      else if (statuses.filter((s) => s === 429).length === 1) {
        await expectError(res, 429, "rate_limited");
        expect(res.headers.get("Retry-After")).toBe("60");
      } else await res.body?.cancel();
    }
    expect(statuses.slice(0, CLIENT_LIMIT).every((s) => s === 400)).toBe(true);
    expect(statuses.slice(CLIENT_LIMIT).every((s) => s === 429)).toBe(true);
  }, 60_000);

  it("refuses a body past 512 KB as it streams in, without waiting for its end", async () => {
    const stripe = new Stripe("sk_test_signing_only", { httpClient: Stripe.createFetchHttpClient() });
    const header = await stripe.webhooks.generateTestHeaderStringAsync({
      payload: "{}",
      secret: testEnv.STRIPE_WEBHOOK_SECRET ?? "",
      cryptoProvider: Stripe.createSubtleCryptoProvider(),
    });
    // 600 KB, then a stream that never ends: reading the whole body first would wait forever.
    const chunk = new TextEncoder().encode("x".repeat(60 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent < 10) {
          sent++;
          controller.enqueue(chunk);
        }
        // else: nothing more, and no close.
      },
    });
    const answer = call("/webhooks/stripe", {
      method: "POST",
      headers: { "Stripe-Signature": header },
      body,
      duplex: "half",
    } as RequestInit);
    const res = await Promise.race([answer, new Promise<"hung">((r) => setTimeout(() => r("hung"), 5_000))]);
    expect(res).not.toBe("hung");
    await expectError(res as Response, 400, "invalid_body");
    // With a declared length, refused before a byte is read.
    const declared = await call("/webhooks/stripe", {
      method: "POST",
      headers: { "Stripe-Signature": header, "Content-Length": String(600 * 1024) },
      body: "x".repeat(600 * 1024),
    });
    await expectError(declared, 400, "invalid_body");
  });
});
