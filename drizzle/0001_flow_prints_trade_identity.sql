ALTER TABLE "flow_prints" ALTER COLUMN "underlying_price" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "open_interest" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "opening" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ADD COLUMN "otm_pct" double precision;--> statement-breakpoint
ALTER TABLE "flow_prints" ADD COLUMN "print_class" text DEFAULT 'regular' NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ADD COLUMN "exchange_id" smallint;--> statement-breakpoint
ALTER TABLE "flow_prints" ADD COLUMN "sequence_number" bigint;--> statement-breakpoint
ALTER TABLE "flow_prints" ADD COLUMN "trade_condition_id" smallint;--> statement-breakpoint
CREATE UNIQUE INDEX "flow_prints_trade_idx" ON "flow_prints" USING btree ("option_symbol","executed_at","sequence_number") WHERE "flow_prints"."sequence_number" is not null;