import { QuoteProviderError, type ProviderQuote, type QuoteProvider } from "./quote-provider";

/** How long one vendor answer per symbol is reused in an isolate, failures included. */
export const VENDOR_QUOTE_TTL_MS = 2_000;
/** Symbols remembered per isolate at most (the oldest answer is dropped first). */
const MAX_SYMBOLS = 5_000;

type Outcome = { quote: ProviderQuote | null } | { failure: string };

/** Per vendor (its base URL) and symbol: the last outcome and when it came. Isolate memory, shared by requests. */
const recent = new Map<string, { at: number; outcome: Outcome }>();

/**
 * A provider that asks `provider` at most once per symbol every `VENDOR_QUOTE_TTL_MS` in this
 * isolate: a quote, an unknown symbol and a failure are all reused that long, so a burst of
 * requests costs one vendor call, and a vendor that is down (timeouts of up to two attempts) costs
 * one slow request per symbol every two seconds instead of every request. Only finished outcomes
 * are shared, never a pending call: in workerd a request must not await another request's promise.
 */
export function cachedQuoteProvider(provider: QuoteProvider, vendorKey: string, ttlMs = VENDOR_QUOTE_TTL_MS): QuoteProvider {
  return {
    name: provider.name,
    async quote(symbol: string): Promise<ProviderQuote | null> {
      const key = `${vendorKey}|${symbol}`;
      const hit = recent.get(key);
      const outcome = hit && Date.now() - hit.at < ttlMs ? hit.outcome : await ask(provider, symbol, key);
      if ("failure" in outcome) throw new QuoteProviderError(outcome.failure);
      return outcome.quote;
    },
  };
}

async function ask(provider: QuoteProvider, symbol: string, key: string): Promise<Outcome> {
  let outcome: Outcome;
  try {
    outcome = { quote: await provider.quote(symbol) };
  } catch (err) {
    outcome = { failure: err instanceof QuoteProviderError ? err.message : "unexpected provider failure" };
  }
  recent.delete(key);
  recent.set(key, { at: Date.now(), outcome });
  if (recent.size > MAX_SYMBOLS) recent.delete(recent.keys().next().value as string);
  return outcome;
}
