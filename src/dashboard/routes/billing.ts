import { Hono } from "hono";
import type { DashboardEnv } from "../env";
import { billingSettings, stripeClient, stripeSdk, type BillingSettings, type Stripe } from "../../billing/stripe-client";
import { API_PLAN } from "../../domain/entitlement";
import { page, requireSession, type DashboardContext } from "../middleware";
import { billingPage, messagePage } from "../pages";
import { accountActionLimit } from "../throttle";
import { services } from "../../services";

const BACK_TO_BILLING = { href: "/dashboard/billing", label: "Back to billing" };

const providerFailed = (c: DashboardContext) =>
  page(
    c,
    messagePage(
      "Billing unavailable",
      "The payment provider could not be reached; nothing was charged. Try again shortly.",
      BACK_TO_BILLING,
      true,
    ),
    502,
  );

/** Runs a billing action with the Stripe client; a provider failure is a page, not a 500. */
async function withStripe(
  c: DashboardContext,
  action: (stripe: Stripe, settings: BillingSettings) => Promise<Response>,
): Promise<Response> {
  const settings = billingSettings(c.get("config"));
  if (!settings) return page(c, messagePage("Billing", "Billing is not configured on this deployment.", BACK_TO_BILLING, true), 404);
  try {
    return await action(await stripeClient(settings), settings);
  } catch (err) {
    if (!(err instanceof (await stripeSdk()).errors.StripeError)) throw err;
    console.warn(JSON.stringify({ level: "warn", event: "billing_provider_failed", type: err.type }));
    return providerFailed(c);
  }
}

/** `/dashboard/billing`: the account's subscription, Stripe Checkout and the customer portal, behind sign-in. */
export const billingPages = new Hono<DashboardEnv>({ strict: false });

billingPages.use(requireSession);

billingPages.get("/", async (c) => {
  const settings = billingSettings(c.get("config"));
  if (!settings) return page(c, billingPage({ configured: false, subscription: null, canSubscribe: false, canManage: false }));
  const session = c.get("session");
  const control = services(c).controlPlane;
  const [view, customer, live] = await Promise.all([
    control.accounts.view(session.accountName),
    control.billing.customerOf(session.accountId),
    control.billing.hasLiveSubscription(session.accountId),
  ]);
  const subscription = view.ok ? view.value.subscription : null;
  const paying = live || (subscription?.plan === API_PLAN && (subscription.status === "active" || subscription.status === "past_due"));
  return page(
    c,
    billingPage({
      configured: true,
      subscription,
      canSubscribe: !paying,
      canManage: customer !== null,
      notice:
        c.req.query("checkout") === "success" ? "Thank you: your subscription starts as soon as the payment is confirmed." : undefined,
    }),
  );
});

// Actions that call the payment provider: a per-account budget besides the per-client one.
billingPages.post("/checkout", accountActionLimit, (c) =>
  withStripe(c, async (stripe, settings) => {
    const session = c.get("session");
    const origin = new URL(c.req.url).origin;
    const control = services(c).controlPlane;
    // A second Checkout would make a second subscription: the existing one is managed in the portal.
    if (await control.billing.hasLiveSubscription(session.accountId)) {
      return page(
        c,
        messagePage(
          "Already subscribed",
          "This account already has a subscription; change or renew it under Manage billing.",
          BACK_TO_BILLING,
          true,
        ),
        409,
      );
    }
    const customer = await control.billing.customerOf(session.accountId);
    const checkout = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: settings.priceBasic, quantity: 1 }],
      client_reference_id: String(session.accountId),
      // The webhook finds the account from the subscription's metadata.
      subscription_data: { metadata: { account_id: String(session.accountId) } },
      ...(customer ? { customer } : {}),
      success_url: `${origin}/dashboard/billing?checkout=success`,
      cancel_url: `${origin}/dashboard/billing`,
    });
    return checkout.url ? c.redirect(checkout.url, 303) : providerFailed(c);
  }),
);

billingPages.post("/portal", accountActionLimit, (c) =>
  withStripe(c, async (stripe) => {
    const customer = await services(c).controlPlane.billing.customerOf(c.get("session").accountId);
    if (!customer) {
      return page(
        c,
        messagePage(
          "No billing account yet",
          "Subscribe first; the customer portal manages an existing subscription.",
          BACK_TO_BILLING,
          true,
        ),
        409,
      );
    }
    const portal = await stripe.billingPortal.sessions.create({ customer, return_url: `${new URL(c.req.url).origin}/dashboard/billing` });
    return c.redirect(portal.url, 303);
  }),
);
