CREATE TABLE "fundamentals_refreshes" (
	"day" date PRIMARY KEY NOT NULL,
	"vendor" text NOT NULL,
	"done_at" timestamp with time zone DEFAULT now() NOT NULL,
	"report" jsonb NOT NULL
);
