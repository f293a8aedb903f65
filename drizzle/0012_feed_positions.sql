CREATE TABLE "feed_positions" (
	"feed" text NOT NULL,
	"schema" text NOT NULL,
	"ts_recv" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feed_positions_feed_schema_pk" PRIMARY KEY("feed","schema")
);
