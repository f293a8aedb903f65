import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";

/** The secret key the Worker under test sends (STRIPE_SECRET_KEY in vitest.config.ts). */
export const STRIPE_TEST_KEY = "sk_test_replay_0123456789abcdef";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/stripe/${name}`, import.meta.url), "utf8");

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

/** The recorded subscription object with a test's current state written into it. */
function subscriptionObject(id: string, state: SubscriptionState): unknown {
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

/**
 * The Stripe API as the SDK sees it (its host/port settings point here), replaying recorded
 * responses. `GET /__requests` lists the form bodies received, for tests to check what was asked;
 * `POST /__subscriptions/:id` sets the current state `GET /v1/subscriptions/:id` answers.
 */
export function startStripeReplayServer(port: number): Promise<Server> {
  const received: { path: string; body: string }[] = [];
  const subscriptions = new Map<string, SubscriptionState>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const json = (status: number, text: string) =>
        res.writeHead(status, { "Content-Type": "application/json", "Request-Id": "req_replay" }).end(text);
      if (req.url === "/__requests") return json(200, JSON.stringify(received));
      const set = /^\/__subscriptions\/([A-Za-z0-9_]+)$/.exec(req.url ?? "");
      if (set && req.method === "POST") {
        subscriptions.set(set[1]!, JSON.parse(body) as SubscriptionState);
        return json(200, "{}");
      }
      if (req.headers.authorization !== `Bearer ${STRIPE_TEST_KEY}`) {
        return json(401, JSON.stringify({ error: { type: "invalid_request_error", message: "Invalid API Key provided." } }));
      }
      received.push({ path: req.url ?? "", body });
      if (req.method === "POST" && req.url === "/v1/checkout/sessions") return json(200, fixture("checkout-session.json"));
      if (req.method === "POST" && req.url === "/v1/billing_portal/sessions") return json(200, fixture("billing-portal-session.json"));
      const get = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(req.url ?? "");
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
        JSON.stringify({ error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${req.url}).` } }),
      );
    });
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}
