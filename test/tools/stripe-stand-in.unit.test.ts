import { createServer, request, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOn } from "../../devkit/listen";
import { startStripeStandIn } from "../../devkit/stripe/stripe-dev-server";

/**
 * The local Stripe stand-in of `npm run dev` (devkit/stripe/stripe-dev-server.ts) sets subscriptions,
 * and so plans, on request: like the local SQL endpoint, it serves only its own clients.
 */
const KEY = "sk_test_stand_in_0123456789abcdef";
const STATE = JSON.stringify({ status: "active", customer: "cus_probe", metadata: { account_id: "1" } });
let stripe: Server & { url: string };
let webhook: Server;
let delivered = 0;

beforeAll(async () => {
  webhook = createServer((req, res) => {
    delivered++;
    req.resume();
    res.writeHead(200).end("{}");
  });
  const hookPort = await listenOn(webhook);
  stripe = await startStripeStandIn({
    secretKey: KEY,
    webhook: { url: `http://127.0.0.1:${hookPort}/webhooks/stripe`, secret: "whsec_stand_in_probe" },
  });
});

afterAll(async () => {
  for (const server of [stripe, webhook]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const send = (path: string, init: RequestInit = {}) => fetch(`${stripe.url}${path}`, { redirect: "manual", ...init });
const withKey = (headers: Record<string, string> = {}) => ({ Authorization: `Bearer ${KEY}`, ...headers });
const subscription = async (id: string) => (await send(`/v1/subscriptions/${id}`, { headers: withKey() })).status;

/** A request whose Host header names another host resolving to 127.0.0.1 (DNS rebinding). */
const rebound = (path: string, method: string, headers: Record<string, string>, body = "") =>
  new Promise<number>((resolve, reject) => {
    const port = new URL(stripe.url).port;
    const req = request({ host: "127.0.0.1", port, path, method, headers: { ...headers, Host: `evil.example:${port}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(body);
  });

describe("the local Stripe stand-in's test endpoints", () => {
  it("refuse writes without the secret key, from a browser, or under another host name; take them with the key", async () => {
    const set = (id: string, headers: Record<string, string>) => send(`/__subscriptions/${id}`, { method: "POST", headers, body: STATE });
    // Unauthenticated, or with another key.
    expect((await set("sub_nokey", {})).status).toBe(401);
    expect((await set("sub_nokey", { Authorization: "Bearer sk_test_guess" })).status).toBe(401);
    // A page the developer visits can POST text/plain without a preflight, but not hide its Origin.
    expect((await set("sub_page", withKey({ Origin: "https://evil.example", "Content-Type": "text/plain" }))).status).toBe(403);
    expect((await set("sub_page", { Origin: "https://evil.example", "Content-Type": "text/plain" })).status).toBe(403);
    expect(await rebound("/__subscriptions/sub_rebound", "POST", withKey(), STATE)).toBe(403);
    for (const id of ["sub_nokey", "sub_page", "sub_rebound"]) expect(await subscription(id), id).toBe(404);

    expect((await set("sub_ok", withKey())).status).toBe(200);
    expect(await subscription("sub_ok")).toBe(200);
  });

  it("list what was asked only to a client with the key", async () => {
    expect((await send("/__requests")).status).toBe(401);
    expect((await send("/__requests", { headers: withKey({ Origin: "https://evil.example" }) })).status).toBe(403);
    const listed = await send("/__requests", { headers: withKey() });
    expect(listed.status).toBe(200);
    expect(Array.isArray(await listed.json())).toBe(true);
  });

  it("keep the API to programs with the key, and the hosted pages' forms to those pages", async () => {
    expect((await send("/v1/subscriptions/sub_ok", { headers: withKey({ Origin: "https://evil.example" }) })).status).toBe(403);
    const created = await send("/v1/checkout/sessions", {
      method: "POST",
      headers: withKey({ "Content-Type": "application/x-www-form-urlencoded" }),
      body: new URLSearchParams({ "line_items[0][price]": "price_probe", client_reference_id: "1", success_url: "http://127.0.0.1:1/ok" }),
    });
    const checkout = new URL(((await created.json()) as { url: string }).url).pathname;
    // Another site's form posting to "Pay": refused, nothing delivered.
    expect((await send(`${checkout}/pay`, { method: "POST", headers: { Origin: "https://evil.example" } })).status).toBe(403);
    expect(await rebound(`${checkout}/pay`, "POST", {})).toBe(403);
    expect(delivered).toBe(0);
    // The page's own form.
    expect((await send(checkout)).status).toBe(200);
    const paid = await send(`${checkout}/pay`, { method: "POST", headers: { Origin: stripe.url } });
    expect(paid.status).toBe(303);
    expect(delivered).toBe(1);
  });
});
