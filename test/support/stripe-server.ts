import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";

/** The secret key the Worker under test sends (STRIPE_SECRET_KEY in vitest.config.ts). */
export const STRIPE_TEST_KEY = "sk_test_replay_0123456789abcdef";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/stripe/${name}`, import.meta.url), "utf8");

/**
 * The Stripe API as the SDK sees it (its host/port settings point here), replaying recorded
 * responses. `GET /__requests` lists the form bodies received, for tests to check what was asked.
 */
export function startStripeReplayServer(port: number): Promise<Server> {
  const received: { path: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const json = (status: number, text: string) =>
        res.writeHead(status, { "Content-Type": "application/json", "Request-Id": "req_replay" }).end(text);
      if (req.url === "/__requests") return json(200, JSON.stringify(received));
      if (req.headers.authorization !== `Bearer ${STRIPE_TEST_KEY}`) {
        return json(401, JSON.stringify({ error: { type: "invalid_request_error", message: "Invalid API Key provided." } }));
      }
      received.push({ path: req.url ?? "", body });
      if (req.method === "POST" && req.url === "/v1/checkout/sessions") return json(200, fixture("checkout-session.json"));
      if (req.method === "POST" && req.url === "/v1/billing_portal/sessions") return json(200, fixture("billing-portal-session.json"));
      return json(
        404,
        JSON.stringify({ error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${req.url}).` } }),
      );
    });
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}
