CREATE TABLE "market_versions" (
	"scope" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL,
	"as_of" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "market_state" ADD COLUMN "scope_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "market_versions_version_idx" ON "market_versions" USING btree ("version");