import type { Config } from "../env";
import { FinnhubQuoteProvider } from "./finnhub";
import { cachedQuoteProvider } from "./quote-cache";
import type { QuoteProvider } from "./quote-provider";

const DEFAULT_TIMEOUT_MS = 1_500;

/** The provider named by the configuration (its answers reused briefly per symbol), or null to serve stored quotes only. */
export function quoteProviderFrom(config: Config): QuoteProvider | null {
  if (config.QUOTE_PROVIDER !== "finnhub" || !config.QUOTE_PROVIDER_TOKEN) return null;
  const baseUrl = config.QUOTE_PROVIDER_URL ?? "https://finnhub.io";
  const finnhub = new FinnhubQuoteProvider({
    baseUrl,
    token: config.QUOTE_PROVIDER_TOKEN,
    timeoutMs: config.QUOTE_PROVIDER_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS,
  });
  return cachedQuoteProvider(finnhub, `finnhub:${baseUrl}`);
}
