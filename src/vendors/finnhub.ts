import { z } from "zod";
import { finnhubGet, type FinnhubOptions } from "./finnhub-http";
import { QuoteProviderError, type ProviderQuote, type QuoteProvider } from "./quote-provider";

/** Finnhub's `/api/v1/quote` body: c = current price, t = UNIX time of it (all zeros for unknown symbols). */
const FinnhubQuote = z.object({
  c: z.number().nullable(),
  d: z.number().nullable().optional(),
  dp: z.number().nullable().optional(),
  h: z.number().nullable().optional(),
  l: z.number().nullable().optional(),
  o: z.number().nullable().optional(),
  pc: z.number().nullable().optional(),
  t: z.number().nullable().optional(),
});

/** A request waits on the quote: one quick second try, never a vendor's longer `Retry-After`. */
const RETRY = { attempts: 2, delayMs: 100, maxWaitMs: 100 };

/** HTTP adapter for Finnhub's quote endpoint. */
export class FinnhubQuoteProvider implements QuoteProvider {
  readonly name = "finnhub";

  constructor(private readonly options: FinnhubOptions) {}

  async quote(symbol: string): Promise<ProviderQuote | null> {
    const outcome = await finnhubGet(this.options, "/quote", { symbol }, FinnhubQuote, RETRY);
    if (!outcome.ok) throw new QuoteProviderError(`finnhub: ${outcome.reason}`);
    const { c, t } = outcome.value;
    if (c === null || !(c > 0)) return null;
    return { price: c, asOf: t ? new Date(t * 1000).toISOString() : null };
  }
}
