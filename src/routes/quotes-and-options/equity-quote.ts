import { z } from "zod";
import { tickerParam } from "../../domain/symbols";
import { isoTimestamp } from "../../db/timestamps";
import { ApiError, unknownSymbol } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { underlyingQuery } from "../../market/underlyings";
import { quoteProviderFrom } from "../../vendors/from-config";
import { QuoteProviderError } from "../../vendors/quote-provider";
import { services } from "../../services";

export const EquityQuoteSchema = z.object({
  symbol: z.string().describe("Uppercase ticker."),
  name: z.string().describe("Company or index name."),
  price: z.number().describe("USD."),
  asOf: z.iso.datetime().nullable().describe("UTC time of the price; null when unknown (e.g. a stored fallback without a time)."),
});
export type EquityQuote = z.infer<typeof EquityQuoteSchema>;

export const equityQuoteRoute = defineRoute({
  method: "get",
  path: "/v1/quotes/{symbol}",
  operationId: "getEquityQuote",
  summary: "Equity quote",
  description:
    "Last price from the configured market data vendor; the stored quote when the vendor fails. 502 only when neither is available.",
  tags: ["Quotes and options"],
  access: "entitled",
  caching: "per-request",
  params: z.object({ symbol: tickerParam }),
  response: { description: "The quote.", schema: EquityQuoteSchema },
  errors: ["not_found", "upstream_error"],
  handler: async (c, { params }) => {
    const config = c.get("config");
    const [underlying] = await underlyingQuery(services(c).market, params.symbol);
    if (!underlying) throw unknownSymbol(params.symbol);
    const provider = quoteProviderFrom(config);
    if (provider) {
      try {
        const live = await provider.quote(params.symbol);
        if (live) return { symbol: underlying.symbol, name: underlying.name, price: live.price, asOf: live.asOf };
      } catch (err) {
        const reason = err instanceof QuoteProviderError ? err.message : "unexpected provider failure";
        console.warn(
          JSON.stringify({ level: "warn", requestId: c.get("requestId"), event: "quote_provider_failed", symbol: params.symbol, reason }),
        );
      }
    }
    if (underlying.price === null)
      throw new ApiError("upstream_error", `No quote is available for ${params.symbol} right now; try again shortly.`);
    return { symbol: underlying.symbol, name: underlying.name, price: underlying.price, asOf: isoTimestamp(underlying.asOf) };
  },
});
