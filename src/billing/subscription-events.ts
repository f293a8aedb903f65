import type Stripe from "stripe";
import type { ProviderSubscriptionState } from "../control/billing-events";
import { isSubscriptionStatus, type SubscriptionStatus } from "../domain/subscription-status";

const idOf = (ref: string | { id: string } | null | undefined): string | null =>
  ref == null ? null : typeof ref === "string" ? ref : ref.id;

const statusOf = (status: string): SubscriptionStatus => (isSubscriptionStatus(status) ? status : "incomplete");

/** The events that trigger a read of a subscription: they say that it changed, not what it is now. */
const SUBSCRIPTION_EVENTS = new Set([
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed",
]);
const INVOICE_EVENTS = new Set(["invoice.payment_failed", "invoice.paid"]);

/**
 * The subscription an event is about: its id for the events we act on, null for an invoice of no
 * subscription (a one-off invoice), undefined for the event types we do not act on.
 */
export function subscriptionIdOf(event: Stripe.Event): string | null | undefined {
  if (SUBSCRIPTION_EVENTS.has(event.type)) return (event.data.object as Stripe.Subscription).id;
  if (INVOICE_EVENTS.has(event.type)) {
    const invoice = event.data.object as Stripe.Invoice & { subscription?: string | { id: string } | null };
    // `subscription` before API version 2025-03-31, `parent.subscription_details` since.
    return idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
  }
  return undefined;
}

/**
 * A subscription as retrieved from Stripe, mapped to what the control plane stores: the item at
 * the Basic price if there is one (else the first), its period end (on the item since API 2025,
 * on the subscription before), and the account from `metadata.account_id` (set by our Checkout).
 */
export function subscriptionState(
  sub: Stripe.Subscription,
  o: { priceBasic: string; eventCreated: number; syncedAt: number },
): ProviderSubscriptionState {
  const items = sub.items?.data ?? [];
  const item = items.find((i) => i.price?.id === o.priceBasic) ?? items[0];
  const legacy = sub as Stripe.Subscription & { current_period_end?: number };
  const periodEnd = item?.current_period_end ?? legacy.current_period_end;
  const accountId = Number(sub.metadata?.account_id);
  return {
    subscriptionId: sub.id,
    customerId: idOf(sub.customer) ?? "",
    accountId: Number.isSafeInteger(accountId) && accountId > 0 ? accountId : null,
    status: statusOf(sub.status),
    priceId: item?.price?.id ?? null,
    currentPeriodEnd: typeof periodEnd === "number" ? new Date(periodEnd * 1000).toISOString() : null,
    syncedAt: new Date(o.syncedAt).toISOString(),
    eventAt: new Date(o.eventCreated * 1000).toISOString(),
  };
}
