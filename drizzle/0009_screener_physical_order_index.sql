DROP INDEX "screener_type_exp_idx";--> statement-breakpoint
DROP INDEX "screener_annualized_idx";--> statement-breakpoint
CREATE INDEX "screener_type_exp_delta_idx" ON "screener_contracts" USING btree ("type","expiration","delta");