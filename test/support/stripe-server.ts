import type { Server } from "node:http";
import { startStripeStandIn } from "../../devkit/stripe/stripe-dev-server";

export type { SubscriptionState } from "../../devkit/stripe/stripe-dev-server";

/** The secret key the Worker under test sends (STRIPE_SECRET_KEY in vitest.config.ts). */
export const STRIPE_TEST_KEY = "sk_test_replay_0123456789abcdef";

/**
 * The Stripe API as the SDK sees it, replaying recorded responses: the stand-in `npm run dev` uses
 * (devkit/stripe/stripe-dev-server.ts), without its hosted pages or webhook deliveries. `GET /__requests`
 * lists the form bodies received; `POST /__subscriptions/:id` sets the current state
 * `GET /v1/subscriptions/:id` answers; both with `STRIPE_TEST_KEY` as a bearer token (`stripeTestEndpoint`).
 */
export function startStripeReplayServer(port: number): Promise<Server> {
  return startStripeStandIn({ port, secretKey: STRIPE_TEST_KEY });
}
