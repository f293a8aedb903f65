import { testEnv } from "./worker";

/**
 * A test endpoint of the Stripe stand-in the Worker under test talks to (`GET /__requests`,
 * `POST /__subscriptions/:id`: test/support/stripe-server.ts), with the secret key it asks for.
 */
export const stripeTestEndpoint = (path: string, init: RequestInit = {}): Promise<Response> =>
  fetch(`${testEnv.STRIPE_API_URL}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${testEnv.STRIPE_SECRET_KEY}`, ...(init.headers as Record<string, string> | undefined) },
  });
