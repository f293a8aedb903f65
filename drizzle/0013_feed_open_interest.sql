CREATE TABLE "open_interest_staged" (
	"session_date" date NOT NULL,
	"option_symbol" text NOT NULL,
	"open_interest" integer NOT NULL,
	CONSTRAINT "open_interest_staged_session_date_option_symbol_pk" PRIMARY KEY("session_date","option_symbol")
);
--> statement-breakpoint
ALTER TABLE "market_state" ADD COLUMN "open_interest_date" date;