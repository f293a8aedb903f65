-- Every field of a flow print is served with a value (docs/flow.md, "Values that may be missing").
-- Backfill first: the values stored so far were solved from the trade price (IV, delta) and read
-- from a quote of the print's own session (open interest); missing ones become the documented
-- fallbacks: spot from the nearest print of the underlying in the session, else the session's
-- stored equity quote, else 0; open interest 0, not opening; IV and delta 0 with source `none`.
-- (Reloading a trade file applies the whole chain, mid and snapshot IV included: the loader upserts.)
ALTER TABLE "flow_prints" ADD COLUMN "open_interest_source" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ADD COLUMN "iv_source" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
UPDATE "flow_prints" SET "iv_source" = 'trade' WHERE "iv" IS NOT NULL;--> statement-breakpoint
UPDATE "flow_prints" SET "open_interest_source" = 'session' WHERE "open_interest" IS NOT NULL;--> statement-breakpoint
UPDATE "flow_prints" AS f SET "underlying_price" = coalesce(
  (SELECT p."underlying_price" FROM "flow_prints" p
    WHERE p."ticker" = f."ticker" AND p."session_date" = f."session_date" AND p."underlying_price" IS NOT NULL
      AND p."executed_at" <= f."executed_at"
    ORDER BY p."executed_at" DESC LIMIT 1),
  (SELECT p."underlying_price" FROM "flow_prints" p
    WHERE p."ticker" = f."ticker" AND p."session_date" = f."session_date" AND p."underlying_price" IS NOT NULL
      AND p."executed_at" > f."executed_at"
    ORDER BY p."executed_at" ASC LIMIT 1),
  (SELECT e."price" FROM "equity_quotes" e
    WHERE e."symbol" = f."ticker" AND (e."as_of" AT TIME ZONE 'America/New_York')::date = f."session_date"),
  0)
WHERE f."underlying_price" IS NULL;--> statement-breakpoint
UPDATE "flow_prints" SET "otm_pct" = CASE WHEN "underlying_price" > 0
    THEN round(((CASE WHEN "option_type" = 'call' THEN "strike" - "underlying_price" ELSE "underlying_price" - "strike" END)
      / "underlying_price" * 100)::numeric, 4)::double precision
    ELSE 0 END
WHERE "otm_pct" IS NULL;--> statement-breakpoint
UPDATE "flow_prints" SET "opening" = coalesce("opening", "open_interest" IS NOT NULL AND "size" > "open_interest"),
  "open_interest" = coalesce("open_interest", 0)
WHERE "open_interest" IS NULL OR "opening" IS NULL;--> statement-breakpoint
UPDATE "flow_prints" SET "iv" = coalesce("iv", 0), "delta" = coalesce("delta", 0) WHERE "iv" IS NULL OR "delta" IS NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "underlying_price" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "underlying_price" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "otm_pct" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "otm_pct" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "open_interest" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "open_interest" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "opening" SET DEFAULT false;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "opening" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "delta" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "delta" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "iv" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "flow_prints" ALTER COLUMN "iv" SET NOT NULL;
