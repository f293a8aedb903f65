CREATE TABLE "provider_subscriptions" (
	"subscription_id" text PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"customer_id" text NOT NULL,
	"status" text NOT NULL,
	"price_id" text,
	"current_period_end" timestamp with time zone,
	"past_due_since" timestamp with time zone,
	"synced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "past_due_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "provider_subscriptions" ADD CONSTRAINT "provider_subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "provider_subscriptions_account_idx" ON "provider_subscriptions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "provider_subscriptions_customer_idx" ON "provider_subscriptions" USING btree ("customer_id");--> statement-breakpoint
-- Existing provider subscriptions become rows keyed by subscription id (price unknown: every one was sold as Basic).
INSERT INTO "provider_subscriptions" ("subscription_id", "account_id", "customer_id", "status", "price_id", "current_period_end", "past_due_since", "synced_at")
SELECT "provider_subscription_id", "account_id", coalesce("provider_customer_id", ''), "status", NULL, "current_period_end",
  CASE WHEN "status" = 'past_due' THEN coalesce("provider_event_at", "updated_at") END, coalesce("provider_event_at", "updated_at")
FROM "subscriptions" WHERE "provider_subscription_id" IS NOT NULL
ON CONFLICT ("subscription_id") DO NOTHING;--> statement-breakpoint
-- A subscription already past due: its grace runs from the last recorded change, the closest known transition.
UPDATE "subscriptions" SET "past_due_since" = coalesce("provider_event_at", "updated_at") WHERE "status" = 'past_due';
