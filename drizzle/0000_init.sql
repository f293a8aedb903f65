CREATE TABLE "dividends" (
	"symbol" text NOT NULL,
	"ex_date" date NOT NULL,
	"pay_date" date NOT NULL,
	"amount" double precision NOT NULL,
	"yield_percent" double precision NOT NULL,
	"frequency" text NOT NULL,
	"is_estimated" boolean DEFAULT false NOT NULL,
	CONSTRAINT "dividends_symbol_ex_date_pk" PRIMARY KEY("symbol","ex_date")
);
--> statement-breakpoint
CREATE TABLE "earnings" (
	"symbol" text NOT NULL,
	"earnings_date" date NOT NULL,
	"timing" text NOT NULL,
	"fiscal_quarter" text,
	"eps_estimated" double precision,
	"revenue_estimated" double precision,
	CONSTRAINT "earnings_symbol_earnings_date_pk" PRIMARY KEY("symbol","earnings_date")
);
--> statement-breakpoint
CREATE TABLE "equity_daily" (
	"symbol" text NOT NULL,
	"date" date NOT NULL,
	"open" double precision NOT NULL,
	"high" double precision NOT NULL,
	"low" double precision NOT NULL,
	"close" double precision NOT NULL,
	"volume" bigint NOT NULL,
	CONSTRAINT "equity_daily_symbol_date_pk" PRIMARY KEY("symbol","date")
);
--> statement-breakpoint
CREATE TABLE "equity_quotes" (
	"symbol" text PRIMARY KEY NOT NULL,
	"price" double precision NOT NULL,
	"bid" double precision,
	"ask" double precision,
	"previous_close" double precision,
	"volume" bigint,
	"as_of" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "flow_prints" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"executed_at" timestamp with time zone NOT NULL,
	"session_date" date NOT NULL,
	"ticker" text NOT NULL,
	"option_symbol" text NOT NULL,
	"option_type" text NOT NULL,
	"strike" double precision NOT NULL,
	"expiration" date NOT NULL,
	"price" double precision NOT NULL,
	"size" integer NOT NULL,
	"premium" double precision NOT NULL,
	"bid" double precision,
	"ask" double precision,
	"underlying_price" double precision NOT NULL,
	"side" text NOT NULL,
	"sentiment" text NOT NULL,
	"execution_type" text NOT NULL,
	"volume" integer NOT NULL,
	"open_interest" integer NOT NULL,
	"opening" boolean NOT NULL,
	"delta" double precision,
	"iv" double precision,
	"is_etf_or_index" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "iv_daily" (
	"symbol" text NOT NULL,
	"date" date NOT NULL,
	"iv" double precision NOT NULL,
	CONSTRAINT "iv_daily_symbol_date_pk" PRIMARY KEY("symbol","date")
);
--> statement-breakpoint
CREATE TABLE "market_state" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" bigint NOT NULL,
	"as_of" timestamp with time zone NOT NULL,
	"session_date" date NOT NULL,
	"risk_free_rate" double precision NOT NULL,
	"source" text NOT NULL,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "option_daily" (
	"option_symbol" text NOT NULL,
	"date" date NOT NULL,
	"volume" integer NOT NULL,
	"open_interest" integer NOT NULL,
	"mark" double precision,
	"iv" double precision,
	CONSTRAINT "option_daily_option_symbol_date_pk" PRIMARY KEY("option_symbol","date")
);
--> statement-breakpoint
CREATE TABLE "option_quotes" (
	"option_symbol" text PRIMARY KEY NOT NULL,
	"underlying" text NOT NULL,
	"root" text NOT NULL,
	"expiration" date NOT NULL,
	"strike" double precision NOT NULL,
	"side" text NOT NULL,
	"settlement" text NOT NULL,
	"multiplier" integer DEFAULT 100 NOT NULL,
	"bid" double precision,
	"ask" double precision,
	"last" double precision,
	"volume" integer,
	"open_interest" integer,
	"iv" double precision,
	"delta" double precision,
	"gamma" double precision,
	"theta" double precision,
	"vega" double precision,
	"rho" double precision,
	"underlying_price" double precision,
	"as_of" timestamp with time zone,
	"last_trade_at" timestamp with time zone,
	"previous_mark" double precision
);
--> statement-breakpoint
CREATE TABLE "screener_contracts" (
	"option_key" text PRIMARY KEY NOT NULL,
	"symbol" text NOT NULL,
	"type" text NOT NULL,
	"expiration" date NOT NULL,
	"dte" integer NOT NULL,
	"strike" double precision NOT NULL,
	"bid_price" double precision,
	"ask_price" double precision,
	"last_price" double precision,
	"premium" double precision,
	"volume" integer,
	"open_interest" integer,
	"delta" double precision,
	"gamma" double precision,
	"theta" double precision,
	"vega" double precision,
	"implied_volatility" double precision,
	"yield_percent" double precision,
	"annualized_return" double precision,
	"probability" double precision,
	"bid_ask_spread_pct" double precision,
	"bid_ask_spread_abs" double precision,
	"moneyness" double precision,
	"cushion" double precision,
	"yesterday_mark" double precision,
	"premium_change_1d_pct" double precision,
	"avg_volume_30d" double precision,
	"avg_iv_30d" double precision,
	"avg_premium_30d" double precision,
	"volume_z_30d" double precision,
	"oi_z_30d" double precision,
	"volume_std_30d" double precision,
	"oi_std_30d" double precision,
	"volume_samples_30d" integer,
	"oi_samples_30d" integer,
	"contract_score" double precision,
	"last_trade_date" timestamp with time zone,
	"last_updated_date" timestamp with time zone,
	"earnings_date" date,
	"stock_price" double precision,
	"stock_iv" double precision,
	"ivr" double precision
);
--> statement-breakpoint
CREATE TABLE "underlyings" (
	"symbol" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"asset_type" text NOT NULL,
	"sector" text,
	"industry" text,
	"market_cap" double precision,
	"pe_ratio" double precision,
	"logo_url" text NOT NULL,
	"optionable" boolean NOT NULL,
	"in_coverage" boolean NOT NULL,
	"dividend_yield" double precision,
	"dividend_frequency" text,
	"rating" text,
	"consensus" text,
	"overall_score" smallint,
	"dcf_score" smallint,
	"roe_score" smallint,
	"roa_score" smallint,
	"de_score" smallint,
	"pe_score" smallint,
	"pb_score" smallint
);
--> statement-breakpoint
CREATE TABLE "accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"trial_started_at" timestamp with time zone,
	CONSTRAINT "accounts_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"key_hash" char(64) NOT NULL,
	"prefix" char(16) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"account_id" integer PRIMARY KEY NOT NULL,
	"plan_id" text NOT NULL,
	"status" text NOT NULL,
	"trial_start" timestamp with time zone,
	"trial_end" timestamp with time zone,
	"current_period_end" timestamp with time zone,
	"provider_customer_id" text,
	"provider_subscription_id" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"account_id" integer NOT NULL,
	"date" date NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_account_id_date_pk" PRIMARY KEY("account_id","date")
);
--> statement-breakpoint
ALTER TABLE "equity_quotes" ADD CONSTRAINT "equity_quotes_symbol_underlyings_symbol_fk" FOREIGN KEY ("symbol") REFERENCES "public"."underlyings"("symbol") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dividends_ex_date_idx" ON "dividends" USING btree ("ex_date","symbol");--> statement-breakpoint
CREATE INDEX "earnings_date_idx" ON "earnings" USING btree ("earnings_date","symbol");--> statement-breakpoint
CREATE INDEX "flow_prints_ticker_time_idx" ON "flow_prints" USING btree ("ticker","executed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "flow_prints_session_premium_idx" ON "flow_prints" USING btree ("session_date","premium" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "flow_prints_session_time_idx" ON "flow_prints" USING btree ("session_date","executed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "option_quotes_chain_idx" ON "option_quotes" USING btree ("underlying","expiration","strike","side","root");--> statement-breakpoint
CREATE INDEX "option_quotes_expiration_idx" ON "option_quotes" USING btree ("expiration");--> statement-breakpoint
CREATE INDEX "screener_symbol_exp_strike_idx" ON "screener_contracts" USING btree ("symbol","expiration","strike");--> statement-breakpoint
CREATE INDEX "screener_type_dte_idx" ON "screener_contracts" USING btree ("type","dte");--> statement-breakpoint
CREATE INDEX "screener_yield_idx" ON "screener_contracts" USING btree ("yield_percent" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "screener_volume_idx" ON "screener_contracts" USING btree ("volume" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "screener_delta_idx" ON "screener_contracts" USING btree ("delta");--> statement-breakpoint
CREATE INDEX "underlyings_asset_type_idx" ON "underlyings" USING btree ("asset_type");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_active_idx" ON "api_keys" USING btree ("account_id") WHERE "api_keys"."revoked_at" is null;