import { HTTPS_OR_LOOPBACK, isHttpsOrLoopback } from "../../src/domain/loopback";
import { FinnhubFundamentals } from "../../src/vendors/finnhub-fundamentals";
import type { FundamentalsProvider } from "../../src/vendors/fundamentals-provider";

/** Finnhub's premium plans allow 300 calls a minute per key; half leaves room for the Worker's quote calls on the same key. */
const DEFAULT_CALLS_PER_MINUTE = 150;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The vendor of calendars and fundamentals the environment names: Finnhub when FINNHUB_TOKEN is
 * set (FINNHUB_URL, https or plain http to loopback, and FINNHUB_CALLS_PER_MINUTE optional); else
 * null, and the generator's stay.
 */
export function fundamentalsFromEnv(
  env: NodeJS.ProcessEnv,
): { provider: FundamentalsProvider; callsPerMinute: number } | { error: string } | null {
  const token = env.FINNHUB_TOKEN;
  if (!token) return null;
  const callsPerMinute = env.FINNHUB_CALLS_PER_MINUTE === undefined ? DEFAULT_CALLS_PER_MINUTE : Number(env.FINNHUB_CALLS_PER_MINUTE);
  if (!(callsPerMinute > 0)) return { error: "FINNHUB_CALLS_PER_MINUTE must be a positive number." };
  const baseUrl = env.FINNHUB_URL ?? "https://finnhub.io";
  if (!URL.canParse(baseUrl)) return { error: "FINNHUB_URL must be a URL." };
  // The token travels with every call.
  if (!isHttpsOrLoopback(baseUrl)) return { error: `FINNHUB_URL ${HTTPS_OR_LOOPBACK}.` };
  return { provider: new FinnhubFundamentals({ baseUrl, token, timeoutMs: DEFAULT_TIMEOUT_MS }), callsPerMinute };
}
