import { z } from "zod";
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

const ATTEMPTS = 2;
const RETRY_DELAY_MS = 100;

/** HTTP adapter for Finnhub's quote endpoint. The token travels in a header, never in the URL. */
export class FinnhubQuoteProvider implements QuoteProvider {
  readonly name = "finnhub";

  constructor(private readonly options: { baseUrl: string; token: string; timeoutMs: number }) {}

  async quote(symbol: string): Promise<ProviderQuote | null> {
    let lastFailure = "no attempt made";
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const outcome = await this.#attempt(symbol);
      if (outcome.kind === "ok") return outcome.quote;
      lastFailure = outcome.reason;
      if (!outcome.retryable) break;
      if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
    }
    throw new QuoteProviderError(`finnhub: ${lastFailure}`);
  }

  async #attempt(
    symbol: string,
  ): Promise<{ kind: "ok"; quote: ProviderQuote | null } | { kind: "failed"; reason: string; retryable: boolean }> {
    let res: Response;
    try {
      res = await fetch(`${this.options.baseUrl}/api/v1/quote?symbol=${encodeURIComponent(symbol)}`, {
        headers: { "X-Finnhub-Token": this.options.token, Accept: "application/json" },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      return { kind: "failed", reason: timedOut ? `timed out after ${this.options.timeoutMs} ms` : "network error", retryable: true };
    }
    if (!res.ok) {
      await res.body?.cancel();
      return { kind: "failed", reason: `HTTP ${res.status}`, retryable: res.status >= 500 || res.status === 429 };
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      return { kind: "failed", reason: "malformed JSON body", retryable: false };
    }
    const parsed = FinnhubQuote.safeParse(body);
    if (!parsed.success) return { kind: "failed", reason: "unexpected body shape", retryable: false };
    const { c, t } = parsed.data;
    if (c === null || !(c > 0)) return { kind: "ok", quote: null };
    return { kind: "ok", quote: { price: c, asOf: t ? new Date(t * 1000).toISOString() : null } };
  }
}
