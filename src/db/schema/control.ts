import { sql } from "drizzle-orm";
import { bigint, char, date, index, integer, pgTable, primaryKey, serial, text, uniqueIndex } from "drizzle-orm/pg-core";
import { tsz } from "./columns";

export const accounts = pgTable("accounts", {
  id: serial("id").primaryKey(),
  name: text("name").notNull().unique(),
  createdAt: tsz("created_at").notNull().defaultNow(),
  /** Set once, when the account's single trial starts. */
  trialStartedAt: tsz("trial_started_at"),
  /**
   * Moves on in the same transaction as every control-plane write to the account (subscription,
   * keys): the account's Durable Object keeps the snapshot with the highest version it has seen.
   */
  snapshotVersion: bigint("snapshot_version", { mode: "number" }).notNull().default(0),
});

/** API keys are stored only as SHA-256 hashes plus the 16-character display prefix. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: serial("id").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    keyHash: char("key_hash", { length: 64 }).notNull(),
    prefix: char("prefix", { length: 16 }).notNull(),
    createdAt: tsz("created_at").notNull().defaultNow(),
    revokedAt: tsz("revoked_at"),
    lastUsedAt: tsz("last_used_at"),
  },
  (t) => [
    uniqueIndex("api_keys_hash_idx").on(t.keyHash),
    index("api_keys_active_idx")
      .on(t.accountId)
      .where(sql`${t.revokedAt} is null`),
  ],
);

/** The account's current subscription (one row per account), as the payment provider reports it. */
export const subscriptions = pgTable(
  "subscriptions",
  {
    accountId: integer("account_id")
      .primaryKey()
      .references(() => accounts.id),
    planId: text("plan_id").notNull(),
    status: text("status").notNull(),
    trialStart: tsz("trial_start"),
    trialEnd: tsz("trial_end"),
    currentPeriodEnd: tsz("current_period_end"),
    providerCustomerId: text("provider_customer_id"),
    providerSubscriptionId: text("provider_subscription_id"),
    /** When the provider state this row reflects was read (`provider_subscriptions.synced_at`). */
    providerEventAt: tsz("provider_event_at"),
    /** The first transition into `past_due` of the current unpaid spell; null in any other status. */
    pastDueSince: tsz("past_due_since"),
    updatedAt: tsz("updated_at").notNull().defaultNow(),
  },
  // A failed invoice names only the customer: the webhook finds the account by it.
  (t) => [index("subscriptions_provider_customer_idx").on(t.providerCustomerId)],
);

/**
 * Every payment-provider subscription of an account, by subscription id, as the provider reported
 * it when last retrieved. The account's `subscriptions` row is derived from these (Basic price only).
 */
export const providerSubscriptions = pgTable(
  "provider_subscriptions",
  {
    subscriptionId: text("subscription_id").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    customerId: text("customer_id").notNull(),
    status: text("status").notNull(),
    /** The first item's price; null only for rows recorded before prices were checked (all of them Basic). */
    priceId: text("price_id"),
    currentPeriodEnd: tsz("current_period_end"),
    /** The first transition into `past_due` of the current unpaid spell; cleared when it leaves. */
    pastDueSince: tsz("past_due_since"),
    /** When this state was read from the provider: an older read never overwrites a newer one. */
    syncedAt: tsz("synced_at").notNull(),
  },
  (t) => [index("provider_subscriptions_account_idx").on(t.accountId), index("provider_subscriptions_customer_idx").on(t.customerId)],
);

/** Payment-provider webhook events applied, by event id: a redelivery is recognised and changes nothing. */
export const billingEvents = pgTable("billing_events", {
  eventId: text("event_id").primaryKey(),
  type: text("type").notNull(),
  createdAt: tsz("created_at").notNull(),
  receivedAt: tsz("received_at").notNull().defaultNow(),
});

export const usageDaily = pgTable(
  "usage_daily",
  {
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    date: date("date", { mode: "string" }).notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.date] })],
);

/** A single-sign-on identity (issuer + subject) linked to the account its first sign-in created. */
export const identities = pgTable(
  "identities",
  {
    id: serial("id").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    email: text("email"),
    createdAt: tsz("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("identities_issuer_subject_idx").on(t.issuer, t.subject),
    // The dashboard shows the account's identity email with every page.
    index("identities_account_idx").on(t.accountId),
  ],
);

/**
 * A sign-in under way: the `state`, `nonce` and PKCE verifier of one authorization request, found
 * by the hash of the browser's login cookie and deleted when the callback uses it (single use).
 */
export const loginAttempts = pgTable("login_attempts", {
  idHash: char("id_hash", { length: 64 }).primaryKey(),
  state: text("state").notNull(),
  nonce: text("nonce").notNull(),
  codeVerifier: text("code_verifier").notNull(),
  expiresAt: tsz("expires_at").notNull(),
});

/** Dashboard sessions: only the SHA-256 of the `ods_sess_…` token is stored. */
export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    id: serial("id").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    tokenHash: char("token_hash", { length: 64 }).notNull(),
    createdAt: tsz("created_at").notNull().defaultNow(),
    lastSeenAt: tsz("last_seen_at").notNull().defaultNow(),
    /** The absolute expiry; the idle expiry is measured from `last_seen_at`. */
    expiresAt: tsz("expires_at").notNull(),
    revokedAt: tsz("revoked_at"),
  },
  (t) => [uniqueIndex("dashboard_sessions_token_idx").on(t.tokenHash)],
);
