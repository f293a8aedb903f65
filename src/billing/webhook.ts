import type { Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { API_PLAN } from "../domain/entitlement";
import { LIMITER_RETRY_AFTER_SECONDS } from "../http/limiter-window";
import { clientIp } from "../http/client-ip";
import { ApiError, noEndpoint } from "../http/errors";
import { billingSettings, stripeClient, stripeSdk, verifiedEvent, type Stripe } from "./stripe-client";
import { subscriptionIdOf, subscriptionState } from "./subscription-events";
import { services } from "../services";

/** Stripe events are small; anything larger is not one of them. */
const MAX_PAYLOAD_BYTES = 512 * 1024;

/** Ahead of the handler: the per-client limit (the dashboard's binding, its own counter)… */
const webhookClientLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { success } = await c.env.DASHBOARD_RATE_LIMITER.limit({ key: `webhook:${clientIp(c)}` });
  if (!success) {
    throw new ApiError("rate_limited", "Too many requests from this address; slow down.", {
      headers: { "Retry-After": LIMITER_RETRY_AFTER_SECONDS },
    });
  }
  await next();
};

/** …then the size limit, enforced from `Content-Length` or while the body streams in — never after reading it whole. */
const webhookSizeLimit = bodyLimit({
  maxSize: MAX_PAYLOAD_BYTES,
  onError: () => {
    throw new ApiError("invalid_body", "The event is too large.");
  },
});

const warn = (fields: Record<string, unknown>) => console.warn(JSON.stringify({ level: "warn", ...fields }));

/**
 * `POST /webhooks/stripe`: verifies the signature (the SDK, WebCrypto, its default tolerance),
 * then treats the event as a trigger: retrieves the subscription it is about and stores its current
 * state as Stripe reports it, keyed by subscription id, then pushes the account's new state to its
 * Durable Object. An event that could not be applied (Stripe unreachable, account unknown) is not
 * recorded and answered non-2xx, so Stripe delivers it again. Not part of the public API
 * description; 404 without billing.
 */
export function mountBillingWebhook(app: Hono<AppEnv>): void {
  app.post("/webhooks/stripe", webhookClientLimit, webhookSizeLimit, async (c) => {
    const settings = billingSettings(c.get("config"));
    if (!settings) throw noEndpoint(c.req.path);
    const signature = c.req.header("Stripe-Signature");
    if (!signature) throw new ApiError("invalid_body", "The Stripe-Signature header is missing.");
    const payload = await c.req.text();
    let event: Stripe.Event;
    try {
      event = await verifiedEvent(settings, payload, signature);
    } catch (err) {
      if (err instanceof SyntaxError || err instanceof (await stripeSdk()).errors.StripeSignatureVerificationError) {
        throw new ApiError(
          "invalid_body",
          "The Stripe-Signature header does not match the payload, or its timestamp is outside the tolerance.",
        );
      }
      throw err;
    }
    const subscriptionId = subscriptionIdOf(event);
    // Event types we do not act on, and invoices of no subscription, are acknowledged so Stripe does not retry them.
    if (!subscriptionId) return c.json({ received: true, outcome: "ignored" });
    const control = services(c).controlPlane;
    if (await control.billing.eventApplied(event.id)) return c.json({ received: true, outcome: "duplicate" });

    const syncedAt = Date.now();
    let subscription: Stripe.Subscription;
    try {
      subscription = await (await stripeClient(settings)).subscriptions.retrieve(subscriptionId);
    } catch (err) {
      if (!(err instanceof (await stripeSdk()).errors.StripeError)) throw err;
      if (err.statusCode === 404) {
        // Not a subscription of this Stripe account: no retry can change that.
        warn({ event: "billing_subscription_missing", eventId: event.id, type: event.type, subscriptionId });
        return c.json({ received: true, outcome: "ignored" });
      }
      warn({ event: "billing_subscription_unavailable", eventId: event.id, type: event.type, reason: err.type });
      throw new ApiError("service_unavailable", "Stripe could not be reached; the event was not applied. Retry later.", {
        headers: { "Retry-After": "60" },
      });
    }

    const state = subscriptionState(subscription, { priceBasic: settings.priceBasic, eventCreated: event.created, syncedAt });
    const { outcome } = await control.billing.applyProviderSubscription({ id: event.id, type: event.type }, state, {
      plan: API_PLAN,
      priceId: settings.priceBasic,
    });
    if (outcome === "unknown_account") {
      warn({ event: "billing_event_unknown_account", eventId: event.id, type: event.type, subscriptionId });
      throw new ApiError("conflict", "No account is linked to this subscription; the event was not applied. Retry later.");
    }
    if (state.priceId !== settings.priceBasic) {
      // Stored (a change away from Basic ends what it granted), but a subscription at another price grants nothing.
      warn({ event: "billing_subscription_not_basic", eventId: event.id, subscriptionId, priceId: state.priceId });
      if (outcome === "applied") return c.json({ received: true, outcome: "ignored" });
    }
    return c.json({ received: true, outcome });
  });
}
