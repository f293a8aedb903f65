import type { Config } from "../env";
import { FinnhubQuoteProvider } from "./finnhub";

/** A last price from an upstream vendor. */
export interface ProviderQuote {
  price: number;
  /** UTC instant of the price; null when the vendor gives none. */
  asOf: string | null;
}

/** An upstream equity quote source. `quote` resolves null when the vendor does not know the symbol and throws `QuoteProviderError` when it fails. */
export interface QuoteProvider {
  readonly name: string;
  quote(symbol: string): Promise<ProviderQuote | null>;
}

/** A vendor failure, described without URLs, tokens or response bodies. */
export class QuoteProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuoteProviderError";
  }
}

const DEFAULT_TIMEOUT_MS = 1_500;

/** The provider named by the configuration, or null to serve stored quotes only. */
export function quoteProviderFrom(config: Config): QuoteProvider | null {
  if (config.QUOTE_PROVIDER !== "finnhub" || !config.QUOTE_PROVIDER_TOKEN) return null;
  return new FinnhubQuoteProvider({
    baseUrl: config.QUOTE_PROVIDER_URL ?? "https://finnhub.io",
    token: config.QUOTE_PROVIDER_TOKEN,
    timeoutMs: config.QUOTE_PROVIDER_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS,
  });
}
