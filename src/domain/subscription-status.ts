/** Payment-provider subscription statuses (Stripe's set): the admin API, billing and the control plane read this one list. */
export const SUBSCRIPTION_STATUSES = [
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
  "incomplete",
  "incomplete_expired",
  "paused",
] as const;

export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export function isSubscriptionStatus(status: string): status is SubscriptionStatus {
  return (SUBSCRIPTION_STATUSES as readonly string[]).includes(status);
}

/** Provider statuses in which a subscription still exists and bills: a second Checkout would make a second one. */
export const LIVE_PROVIDER_STATUSES: readonly SubscriptionStatus[] = ["active", "trialing", "past_due", "incomplete", "unpaid", "paused"];
