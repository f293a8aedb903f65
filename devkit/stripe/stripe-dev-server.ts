import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { listenOn, reservePort } from "../listen";
import { stripeEvent } from "./stripe-event";

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/stripe/${name}`, import.meta.url), "utf8");

/** What a test may set of a subscription's current state (`POST /__subscriptions/:id`). */
export interface SubscriptionState {
  status: string;
  customer: string;
  metadata?: Record<string, string>;
  /** The item's price id; the recorded object's price otherwise. */
  price?: string;
  /** Unix seconds; the item's period end (API 2025+). */
  current_period_end?: number;
}

/** The recorded subscription object with a current state written into it. */
function subscriptionObject(id: string, state: SubscriptionState): Record<string, unknown> {
  const sub = JSON.parse(fixture("subscription.json"));
  const item = sub.items.data[0];
  sub.id = id;
  sub.status = state.status;
  sub.customer = state.customer;
  sub.metadata = state.metadata ?? {};
  if (state.price) item.price.id = item.plan.id = state.price;
  if (state.current_period_end !== undefined) {
    item.current_period_end = state.current_period_end;
    item.current_period_start = state.current_period_end - 30 * 86_400;
  }
  item.subscription = id;
  sub.items.url = `/v1/subscription_items?subscription=${id}`;
  if (state.status === "canceled") sub.canceled_at = sub.ended_at = Math.floor(Date.now() / 1000);
  return sub;
}

/** Stripe's webhook signature scheme: `t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<payload>">`. */
export function stripeSignatureHeader(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

export interface StripeStandInOptions {
  /** 0 or unset: a port the system picks (`url` names it). */
  port?: number;
  /** The only secret key the API accepts (`Authorization: Bearer …`). */
  secretKey: string;
  /**
   * Development: Checkout and portal sessions get local pages (`/checkout/:id`, `/portal/:id`) standing in
   * for Stripe's hosted ones, which change subscriptions and deliver signed events to `url`.
   * Unset (tests): the recorded sessions are answered as they are.
   */
  webhook?: { url: string; secret: string };
}

interface CheckoutSession {
  price: string;
  accountId: string | undefined;
  customer: string | undefined;
  successUrl: string;
  cancelUrl: string;
  paid: boolean;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string);

const standInPage = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
  `<body style="font-family:sans-serif;max-width:36rem;margin:3rem auto"><h1>${escapeHtml(title)}</h1>` +
  `<p><em>Local stand-in for Stripe (npm run dev): no card, no charge.</em></p>${body}</body></html>`;

const newId = (prefix: string) => `${prefix}_dev_${randomBytes(8).toString("hex")}`;

/** The stand-in's pages a browser opens (Checkout and the portal, development only); all else is for programs. */
const BROWSER_PAGES = /^\/(checkout|portal)\//;

/**
 * The stand-in sets subscriptions, and so plans, on request: only its own clients may use it, as
 * only the local SQL endpoint's may use it (devkit/neon-endpoint/neon-http-server.ts). No other
 * host name (DNS rebinding); no browser outside its own pages (a page the developer visits could
 * POST text/plain without a preflight, but not hide its Origin), and those pages' forms only from
 * themselves; the test endpoints (`/__…`), like the API, only with the secret key. Returns the
 * refusal, or null.
 */
function refusal(req: IncomingMessage, secretKey: string): [number, string] | null {
  const port = req.socket.localPort;
  const host = req.headers.host;
  if (!["127.0.0.1", "localhost", "[::1]"].some((h) => host === `${h}:${port}`)) {
    return [403, "the Stripe stand-in answers only on the loopback address"];
  }
  const origin = req.headers.origin;
  const url = req.url ?? "";
  if (BROWSER_PAGES.test(url)) {
    return origin === undefined || origin === `http://${host}` ? null : [403, "only the stand-in's own pages may post to it"];
  }
  if (origin !== undefined) return [403, "browsers may not use the Stripe stand-in's API or test endpoints"];
  if (url.startsWith("/__") && req.headers.authorization !== `Bearer ${secretKey}`) {
    return [401, "the test endpoints need the stand-in's secret key"];
  }
  return null;
}

/**
 * The Stripe API as the SDK sees it (its host/port settings point here), answering with recorded
 * responses (test/fixtures/stripe). `GET /__requests` lists the form bodies received, for tests to
 * check what was asked; `POST /__subscriptions/:id` sets the current state `GET /v1/subscriptions/:id`
 * answers; both, like the API, take the secret key as a bearer token (see `refusal`). With `webhook` (npm run dev) it keeps state: a Checkout session's local page ("Pay")
 * creates an active subscription and delivers `customer.subscription.created`; a portal session's
 * page ("Cancel subscription") cancels the customer's subscriptions and delivers
 * `customer.subscription.deleted`.
 */
export async function startStripeStandIn(options: StripeStandInOptions): Promise<Server & { url: string }> {
  // Its pages name the port, so it is bound first (0 or none: one the system picks).
  const port = options.port || (await reservePort());
  const base = `http://127.0.0.1:${port}`;
  const received: { path: string; body: string }[] = [];
  const subscriptions = new Map<string, SubscriptionState>();
  const checkouts = new Map<string, CheckoutSession>();
  const portals = new Map<string, { customer: string; returnUrl: string }>();

  async function deliver(type: string, subscriptionId: string): Promise<string | undefined> {
    const hook = options.webhook;
    if (!hook) return undefined;
    const created = Math.floor(Date.now() / 1000);
    const payload = stripeEvent(type, created, subscriptionObject(subscriptionId, subscriptions.get(subscriptionId)!), newId("evt"));
    try {
      const res = await fetch(hook.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Stripe-Signature": stripeSignatureHeader(payload, hook.secret, created) },
        body: payload,
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      return res.ok ? undefined : `${res.status} ${text.slice(0, 300)}`;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      void (async () => {
        const url = req.url ?? "";
        const json = (status: number, text: string) =>
          res.writeHead(status, { "Content-Type": "application/json", "Request-Id": "req_replay" }).end(text);
        const html = (status: number, title: string, markup: string) =>
          res
            .writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" })
            .end(standInPage(title, markup));
        const redirect = (location: string) => res.writeHead(303, { Location: location }).end();
        const refused = refusal(req, options.secretKey);
        if (refused) return json(refused[0], JSON.stringify({ error: { type: "invalid_request_error", message: refused[1] } }));
        if (url === "/__requests") return json(200, JSON.stringify(received));
        const set = /^\/__subscriptions\/([A-Za-z0-9_]+)$/.exec(url);
        if (set && req.method === "POST") {
          subscriptions.set(set[1]!, JSON.parse(body) as SubscriptionState);
          return json(200, "{}");
        }

        // The hosted pages (development only).
        if (options.webhook) {
          const checkoutPage = /^\/checkout\/([A-Za-z0-9_]+)(\/pay)?$/.exec(url);
          const checkout = checkoutPage && checkouts.get(checkoutPage[1]!);
          if (checkoutPage && checkout && req.method === "GET" && !checkoutPage[2]) {
            return html(
              200,
              "Checkout",
              `<p>Basic (${escapeHtml(checkout.price)}) for account ${escapeHtml(checkout.accountId ?? "?")}.</p>` +
                `<form method="post" action="/checkout/${checkoutPage[1]}/pay"><button type="submit">Pay</button></form>` +
                `<p><a href="${escapeHtml(checkout.cancelUrl)}">Back</a></p>`,
            );
          }
          if (checkoutPage && checkout && req.method === "POST" && checkoutPage[2]) {
            if (!checkout.paid) {
              checkout.paid = true;
              checkout.customer ??= newId("cus");
              const id = newId("sub");
              subscriptions.set(id, {
                status: "active",
                customer: checkout.customer,
                metadata: checkout.accountId ? { account_id: checkout.accountId } : {},
                price: checkout.price,
                current_period_end: Math.floor(Date.now() / 1000) + 30 * 86_400,
              });
              const failed = await deliver("customer.subscription.created", id);
              if (failed) return html(502, "Webhook failed", `<p>The Worker answered the event with: ${escapeHtml(failed)}</p>`);
            }
            return redirect(checkout.successUrl);
          }
          const portalPage = /^\/portal\/([A-Za-z0-9_]+)(\/cancel)?$/.exec(url);
          const portal = portalPage && portals.get(portalPage[1]!);
          if (portalPage && portal) {
            const live = [...subscriptions].filter(([, s]) => s.customer === portal.customer && s.status !== "canceled");
            if (req.method === "GET" && !portalPage[2]) {
              return html(
                200,
                "Customer portal",
                `<p>Customer ${escapeHtml(portal.customer)}: ${live.length} live subscription(s).</p>` +
                  (live.length
                    ? `<form method="post" action="/portal/${portalPage[1]}/cancel"><button type="submit">Cancel subscription</button></form>`
                    : "") +
                  `<p><a href="${escapeHtml(portal.returnUrl)}">Return</a></p>`,
              );
            }
            if (req.method === "POST" && portalPage[2]) {
              for (const [id, state] of live) {
                subscriptions.set(id, { ...state, status: "canceled" });
                const failed = await deliver("customer.subscription.deleted", id);
                if (failed) return html(502, "Webhook failed", `<p>The Worker answered the event with: ${escapeHtml(failed)}</p>`);
              }
              return redirect(portal.returnUrl);
            }
          }
        }

        if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
          return json(401, JSON.stringify({ error: { type: "invalid_request_error", message: "Invalid API Key provided." } }));
        }
        received.push({ path: url, body });
        if (req.method === "POST" && url === "/v1/checkout/sessions") {
          if (!options.webhook) return json(200, fixture("checkout-session.json"));
          const form = new URLSearchParams(body);
          const id = newId("cs");
          const session: CheckoutSession = {
            price: form.get("line_items[0][price]") ?? "",
            accountId: form.get("subscription_data[metadata][account_id]") ?? form.get("client_reference_id") ?? undefined,
            customer: form.get("customer") ?? undefined,
            successUrl: form.get("success_url") ?? "/",
            cancelUrl: form.get("cancel_url") ?? "/",
            paid: false,
          };
          checkouts.set(id, session);
          const recorded = JSON.parse(fixture("checkout-session.json"));
          return json(
            200,
            JSON.stringify({
              ...recorded,
              id,
              client_reference_id: form.get("client_reference_id"),
              customer: session.customer ?? null,
              success_url: session.successUrl,
              cancel_url: session.cancelUrl,
              url: `${base}/checkout/${id}`,
            }),
          );
        }
        if (req.method === "POST" && url === "/v1/billing_portal/sessions") {
          if (!options.webhook) return json(200, fixture("billing-portal-session.json"));
          const form = new URLSearchParams(body);
          const id = newId("bps");
          const customer = form.get("customer") ?? "";
          const returnUrl = form.get("return_url") ?? "/";
          portals.set(id, { customer, returnUrl });
          const recorded = JSON.parse(fixture("billing-portal-session.json"));
          return json(200, JSON.stringify({ ...recorded, id, customer, return_url: returnUrl, url: `${base}/portal/${id}` }));
        }
        const get = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(url);
        if (req.method === "GET" && get) {
          const state = subscriptions.get(get[1]!);
          if (state) return json(200, JSON.stringify(subscriptionObject(get[1]!, state)));
          return json(
            404,
            JSON.stringify({
              error: {
                code: "resource_missing",
                doc_url: "https://stripe.com/docs/error-codes/resource-missing",
                message: `No such subscription: '${get[1]}'`,
                param: "id",
                request_log_url: "https://dashboard.stripe.com/test/logs/req_replay",
                type: "invalid_request_error",
              },
            }),
          );
        }
        return json(
          404,
          JSON.stringify({ error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url}).` } }),
        );
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
        res.end(err instanceof Error ? err.message : String(err));
      });
    });
  });
  await listenOn(server, port);
  return Object.assign(server, { url: base });
}
