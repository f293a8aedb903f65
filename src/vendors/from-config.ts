import type { Config } from "../env";
import { FinnhubQuoteProvider } from "./finnhub";
import type { QuoteProvider } from "./quote-provider";

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
