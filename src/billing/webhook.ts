import type { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { controlPlaneFor } from "../control/for-request";
import { API_PLAN } from "../domain/entitlement";
import { ApiError, noEndpoint } from "../http/errors";
import { billingSettings, Stripe, verifiedEvent } from "./stripe-client";
import { subscriptionChange } from "./subscription-events";

/** Stripe events are small; anything larger is not one of them. */
const MAX_PAYLOAD_BYTES = 512 * 1024;

/**
 * `POST /webhooks/stripe`: verifies the signature (the SDK, WebCrypto, its default tolerance),
 * then records and applies the event once, in creation-time order, and pushes the new state to
 * the account's Durable Object. Not part of the public API description; 404 without billing.
 */
export function mountBillingWebhook(app: Hono<AppEnv>): void {
  app.post("/webhooks/stripe", async (c) => {
    const settings = billingSettings(c.get("config"));
    if (!settings) throw noEndpoint(c.req.path);
    const signature = c.req.header("Stripe-Signature");
    if (!signature) throw new ApiError("invalid_body", "The Stripe-Signature header is missing.");
    const payload = await c.req.text();
    if (payload.length > MAX_PAYLOAD_BYTES) throw new ApiError("invalid_body", "The event is too large.");
    let event: Stripe.Event;
    try {
      event = await verifiedEvent(settings, payload, signature);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError || err instanceof SyntaxError) {
        throw new ApiError(
          "invalid_body",
          "The Stripe-Signature header does not match the payload, or its timestamp is outside the tolerance.",
        );
      }
      throw err;
    }
    const change = subscriptionChange(event);
    // Event types we do not act on are acknowledged, so the provider does not retry them for days.
    if (!change) return c.json({ received: true, outcome: "ignored" });
    const outcome = await controlPlaneFor(c).applyProviderEvent({ id: event.id, type: event.type }, change, API_PLAN);
    if (outcome === "unknown_account") {
      console.warn(JSON.stringify({ level: "warn", event: "billing_event_unknown_account", eventId: event.id, type: event.type }));
    }
    return c.json({ received: true, outcome });
  });
}
