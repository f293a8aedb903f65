CREATE TABLE "screener_contracts" (
	"option_key" text PRIMARY KEY NOT NULL,
	"symbol" text NOT NULL,
	"type" text NOT NULL,
	"expiration" date NOT NULL,
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
	"spread_abs" double precision,
	"spread_pct" double precision,
	"moneyness" text NOT NULL,
	"cushion" double precision,
	"liquidity" integer NOT NULL,
	"strike_rank" integer NOT NULL,
	"yesterday_mark" double precision,
	"premium_change_1d_pct" double precision,
	"premium_increasing" boolean,
	"premium_increasing_30d" boolean,
	"avg_volume_30d" double precision,
	"avg_iv_30d" double precision,
	"avg_premium_30d" double precision,
	"volume_z_30d" double precision,
	"oi_z_30d" double precision,
	"volume_std_30d" double precision,
	"oi_std_30d" double precision,
	"volume_diff_30d" double precision,
	"oi_diff_30d" double precision,
	"volume_samples_30d" integer NOT NULL,
	"oi_samples_30d" integer NOT NULL,
	"contract_score" double precision NOT NULL,
	"last_trade_date" timestamp with time zone,
	"last_updated_date" timestamp with time zone NOT NULL,
	"earnings_date" date,
	"earnings_before_expiration" boolean NOT NULL,
	"expiration_near_earnings" boolean NOT NULL,
	"asset_type" text NOT NULL,
	"industry" text,
	"sector" text,
	"rating" text,
	"consensus" text,
	"logo_url" text NOT NULL,
	"stock_price" double precision,
	"market_cap" double precision,
	"pe_ratio" double precision,
	"rsi" double precision,
	"stock_iv" double precision,
	"ivr" double precision,
	"lowest_stock_iv" double precision,
	"lowest_stock_iv_date" date,
	"highest_stock_iv" double precision,
	"highest_stock_iv_date" date,
	"fifty_two_week_low" double precision,
	"fifty_two_week_high" double precision,
	"fifty_day_average" double precision,
	"two_hundred_day_average" double precision,
	"dividend_yield" double precision,
	"dividend_frequency" text,
	"next_dividend_amount" double precision,
	"next_dividend_date" date,
	"next_dividend_payment_date" date,
	"next_dividend_is_estimated" boolean NOT NULL,
	"overall_score" smallint,
	"dcf_score" smallint,
	"roe_score" smallint,
	"roa_score" smallint,
	"de_score" smallint,
	"pe_score" smallint,
	"pb_score" smallint
);
--> statement-breakpoint
CREATE INDEX "screener_symbol_exp_strike_idx" ON "screener_contracts" USING btree ("symbol","expiration","strike","option_key");--> statement-breakpoint
CREATE INDEX "screener_type_exp_idx" ON "screener_contracts" USING btree ("type","expiration");--> statement-breakpoint
CREATE INDEX "screener_annualized_idx" ON "screener_contracts" USING btree ("type","annualized_return" DESC NULLS LAST,"option_key");--> statement-breakpoint
CREATE INDEX "screener_volume_z_idx" ON "screener_contracts" USING btree ("type","volume_z_30d" DESC NULLS LAST,"option_key");--> statement-breakpoint
CREATE INDEX "screener_premium_idx" ON "screener_contracts" USING btree ("premium" DESC NULLS LAST,"option_key");--> statement-breakpoint
-- Standard normal CDF for the screener rebuild's probability of expiring out of the money (N(d2)):
-- Hart's double-precision algorithm as given by G. West, "Better approximations to cumulative
-- normal functions" (2005), accurate to about 1e-14; tested against src/analytics/normal.ts.
CREATE OR REPLACE FUNCTION ods_norm_cdf(x double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN x > 0 THEN 1 - c ELSE c END FROM (
    SELECT CASE
      WHEN a > 37 THEN 0::double precision
      WHEN a < 7.07106781186547 THEN exp(-a * a / 2)
        * ((((((0.0352624965998911 * a + 0.700383064443688) * a + 6.37396220353165) * a + 33.912866078383) * a
          + 112.079291497871) * a + 221.213596169931) * a + 220.206867912376)
        / (((((((0.0883883476483184 * a + 1.75566716318264) * a + 16.064177579207) * a + 86.7807322029461) * a
          + 296.564248779674) * a + 637.333633378831) * a + 793.826512519948) * a + 440.413735824752)
      ELSE exp(-a * a / 2) / (a + 1 / (a + 2 / (a + 3 / (a + 4 / (a + 0.65))))) / 2.506628274631
    END AS c FROM (SELECT abs(x) AS a) AS input
  ) AS tail
$$;
