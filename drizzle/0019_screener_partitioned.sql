-- screener_contracts range-partitioned by symbol: each partition (whole underlyings) is rebuilt beside it and
-- swapped in as the market moves (ingest/screener), never the whole table. The key takes the partition key.
-- Written by hand: drizzle-kit cannot express partitioning (its snapshot holds the keys only). The existing rows
-- move into one partition spanning every symbol; the next rebuild cuts the market into partitions of its size.
CREATE TABLE "screener_baselines" (
	"option_symbol" text PRIMARY KEY NOT NULL,
	"samples" integer NOT NULL,
	"avg_volume" double precision,
	"std_volume" double precision,
	"avg_oi" double precision,
	"std_oi" double precision,
	"avg_iv" double precision,
	"avg_mark" double precision
);
--> statement-breakpoint
CREATE TABLE "screener_partitions" (
	"name" text PRIMARY KEY NOT NULL,
	"lower" text,
	"upper" text,
	"built_version" bigint NOT NULL,
	"built_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE SEQUENCE "screener_partition_seq";--> statement-breakpoint
ALTER TABLE "screener_contracts" RENAME TO "screener_contracts_unpartitioned";--> statement-breakpoint
ALTER TABLE "screener_contracts_unpartitioned" DROP CONSTRAINT "screener_contracts_pkey";--> statement-breakpoint
DROP INDEX "screener_symbol_exp_strike_idx";--> statement-breakpoint
DROP INDEX "screener_type_exp_delta_idx";--> statement-breakpoint
DROP INDEX "screener_volume_z_idx";--> statement-breakpoint
DROP INDEX "screener_premium_idx";--> statement-breakpoint
CREATE TABLE "screener_contracts" (LIKE "screener_contracts_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("symbol");--> statement-breakpoint
CREATE TABLE "screener_contracts_0" PARTITION OF "screener_contracts" FOR VALUES FROM (MINVALUE) TO (MAXVALUE);--> statement-breakpoint
INSERT INTO "screener_contracts" SELECT * FROM "screener_contracts_unpartitioned";--> statement-breakpoint
DROP TABLE "screener_contracts_unpartitioned";--> statement-breakpoint
INSERT INTO "screener_partitions" ("name", "lower", "upper", "built_version") VALUES ('screener_contracts_0', NULL, NULL, 0);--> statement-breakpoint
ALTER TABLE "screener_contracts" ADD CONSTRAINT "screener_contracts_symbol_option_key_pk" PRIMARY KEY("symbol","option_key");--> statement-breakpoint
CREATE INDEX "screener_symbol_exp_strike_idx" ON "screener_contracts" USING btree ("symbol","expiration","strike","option_key");--> statement-breakpoint
CREATE INDEX "screener_type_exp_delta_idx" ON "screener_contracts" USING btree ("type","expiration","delta");--> statement-breakpoint
CREATE INDEX "screener_volume_z_idx" ON "screener_contracts" USING btree ("type","volume_z_30d" DESC NULLS LAST,"option_key");--> statement-breakpoint
CREATE INDEX "screener_premium_idx" ON "screener_contracts" USING btree ("premium" DESC NULLS LAST,"option_key");
