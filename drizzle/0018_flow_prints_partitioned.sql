-- flow_prints partitioned by session (a partition per session, flow_prints_other for a session without one): a
-- session's writes touch only its partition's indexes, and retention drops whole partitions. The keys take the
-- partition key. Written by hand: drizzle-kit cannot express partitioning (its snapshot holds the keys only).
ALTER TABLE "flow_prints" RENAME TO "flow_prints_unpartitioned";--> statement-breakpoint
ALTER TABLE "flow_prints_unpartitioned" DROP CONSTRAINT "flow_prints_pkey";--> statement-breakpoint
DROP INDEX "flow_prints_trade_idx";--> statement-breakpoint
DROP INDEX "flow_prints_ticker_time_idx";--> statement-breakpoint
DROP INDEX "flow_prints_contract_session_idx";--> statement-breakpoint
DROP INDEX "flow_prints_priced_idx";--> statement-breakpoint
DROP INDEX "flow_prints_ticker_session_premium_idx";--> statement-breakpoint
DROP INDEX "flow_prints_premium_idx";--> statement-breakpoint
DROP INDEX "flow_prints_session_premium_idx";--> statement-breakpoint
DROP INDEX "flow_prints_session_time_idx";--> statement-breakpoint
CREATE TABLE "flow_prints" (LIKE "flow_prints_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("session_date");--> statement-breakpoint
ALTER SEQUENCE "flow_prints_id_seq" OWNED BY "flow_prints"."id";--> statement-breakpoint
DO $$
DECLARE
  session date;
BEGIN
  FOR session IN SELECT DISTINCT session_date FROM flow_prints_unpartitioned LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF flow_prints FOR VALUES FROM (%L) TO (%L)',
                   'flow_prints_' || to_char(session, 'YYYYMMDD'), session, session + 1);
  END LOOP;
END $$;--> statement-breakpoint
CREATE TABLE "flow_prints_other" PARTITION OF "flow_prints" DEFAULT;--> statement-breakpoint
INSERT INTO "flow_prints" SELECT * FROM "flow_prints_unpartitioned";--> statement-breakpoint
DROP TABLE "flow_prints_unpartitioned";--> statement-breakpoint
ALTER TABLE "flow_prints" ADD CONSTRAINT "flow_prints_id_session_date_pk" PRIMARY KEY("id","session_date");--> statement-breakpoint
CREATE UNIQUE INDEX "flow_prints_trade_idx" ON "flow_prints" USING btree ("option_symbol","executed_at","sequence_number","session_date") WHERE "flow_prints"."sequence_number" is not null;--> statement-breakpoint
CREATE INDEX "flow_prints_ticker_time_idx" ON "flow_prints" USING btree ("ticker","executed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "flow_prints_contract_session_idx" ON "flow_prints" USING btree ("option_symbol","session_date","executed_at");--> statement-breakpoint
CREATE INDEX "flow_prints_priced_idx" ON "flow_prints" USING btree ("ticker","session_date","executed_at" DESC NULLS LAST) WHERE "flow_prints"."underlying_price" > 0;--> statement-breakpoint
CREATE INDEX "flow_prints_ticker_session_premium_idx" ON "flow_prints" USING btree ("ticker","session_date","premium" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "flow_prints_premium_idx" ON "flow_prints" USING btree ("premium" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "flow_prints_session_premium_idx" ON "flow_prints" USING btree ("session_date","premium" DESC NULLS LAST) WHERE "flow_prints"."print_class" <> 'canceled';--> statement-breakpoint
CREATE INDEX "flow_prints_session_time_idx" ON "flow_prints" USING btree ("session_date","executed_at" DESC NULLS LAST);
