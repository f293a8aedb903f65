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
export const subscriptions = pgTable("subscriptions", {
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
  updatedAt: tsz("updated_at").notNull().defaultNow(),
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
