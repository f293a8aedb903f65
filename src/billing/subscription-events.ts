import type Stripe from "stripe";
import { SUBSCRIPTION_STATUSES, type ProviderSubscriptionChange, type SubscriptionStatus } from "../control/control-plane";

const idOf = (ref: string | { id: string } | null | undefined): string | null =>
  ref == null ? null : typeof ref === "string" ? ref : ref.id;

const statusOf = (status: string): SubscriptionStatus =>
  (SUBSCRIPTION_STATUSES as readonly string[]).includes(status) ? (status as SubscriptionStatus) : "incomplete";

/** Maps a verified event to a subscription change; null for the event types we do not act on. */
export function subscriptionChange(event: Stripe.Event): ProviderSubscriptionChange | null {
  const eventAt = new Date(event.created * 1000).toISOString();
  switch (event.type) {
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const sub = event.data.object;
      const accountId = Number(sub.metadata?.account_id);
      const periodEnd = sub.items?.data?.[0]?.current_period_end;
      return {
        accountId: Number.isSafeInteger(accountId) && accountId > 0 ? accountId : null,
        customerId: idOf(sub.customer) ?? "",
        subscriptionId: sub.id,
        // A deleted subscription is over, whatever status the object still shows.
        status: event.type === "customer.subscription.deleted" ? "canceled" : statusOf(sub.status),
        currentPeriodEnd: typeof periodEnd === "number" ? new Date(periodEnd * 1000).toISOString() : null,
        eventAt,
      };
    }
    case "invoice.payment_failed": {
      const invoice = event.data.object;
      return {
        accountId: null,
        customerId: idOf(invoice.customer) ?? "",
        subscriptionId: idOf(invoice.parent?.subscription_details?.subscription),
        status: "past_due",
        currentPeriodEnd: null,
        eventAt,
      };
    }
    default:
      return null;
  }
}
