import { z } from "zod";
import { tickerParam } from "../../domain/symbols";
import { database } from "../../db/client";
import { isoTimestamp } from "../../db/timestamps";
import { ApiError } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { underlyingQuery } from "../../market/queries";
import { quoteProviderFrom, QuoteProviderError } from "../../market/quote-provider";

export const EquityQuoteSchema = z.object({
  symbol: z.string().describe("Uppercase ticker."),
  name: z.string().describe("Company or index name."),
  price: z.number().describe("USD."),
  asOf: z.iso.datetime().nullable().describe("UTC time of the price; null when unknown (e.g. a stored fallback without a time)."),
});

export const equityQuoteRoute = defineRoute({
  method: "get",
  path: "/v1/quotes/{symbol}",
  operationId: "getEquityQuote",
  summary: "Equity quote",
  description:
    "Last price from the configured market data vendor; the stored quote when the vendor fails. 502 only when neither is available.",
  tags: ["Quotes and options"],
  access: "entitled",
  params: z.object({ symbol: tickerParam }),
  responses: { 200: { description: "The quote.", schema: EquityQuoteSchema } },
  errors: [404, 502],
  handler: async (c, { params }) => {
    const config = c.get("config");
    const [underlying] = await underlyingQuery(database(config.MARKET_DATABASE_URL), params.symbol);
    if (!underlying) throw new ApiError("not_found", `Unknown symbol ${params.symbol}.`);
    const provider = quoteProviderFrom(config);
    if (provider) {
      try {
        const live = await provider.quote(params.symbol);
        if (live) return c.json({ symbol: underlying.symbol, name: underlying.name, price: live.price, asOf: live.asOf });
      } catch (err) {
        const reason = err instanceof QuoteProviderError ? err.message : "unexpected provider failure";
        console.warn(
          JSON.stringify({ level: "warn", requestId: c.get("requestId"), event: "quote_provider_failed", symbol: params.symbol, reason }),
        );
      }
    }
    if (underlying.price === null)
      throw new ApiError("upstream_error", `No quote is available for ${params.symbol} right now; try again shortly.`);
    return c.json({ symbol: underlying.symbol, name: underlying.name, price: underlying.price, asOf: isoTimestamp(underlying.asOf) });
  },
});
