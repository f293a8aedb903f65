/**
 * Why an account is not entitled to the API (`evaluateEntitlement`). Each is also the error code of
 * the 403 the caller gets and the `reason` the account's verify route reports.
 */
export const ENTITLEMENT_REASONS = ["subscription_required", "subscription_inactive", "trial_ended", "plan_upgrade_required"] as const;

export type EntitlementReason = (typeof ENTITLEMENT_REASONS)[number];
