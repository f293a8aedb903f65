import type { z } from "zod";
import type { VendorOutcome } from "./vendor-outcome";

/** Where Finnhub is and how long a call may take; the token travels in a header, never in the URL. */
export interface FinnhubOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

/** How often a call is tried, the wait after a failure (doubled each time), and the longest wait (a `Retry-After` included). */
export interface RetryPolicy {
  attempts: number;
  delayMs: number;
  maxWaitMs: number;
}

type Attempt<T> = VendorOutcome<T> & { retryable?: boolean };

/**
 * GETs `path` (with `params`) from Finnhub and parses the body with `schema`, trying again after a
 * timeout, a network error, a 5xx or a 429 (after the vendor's `Retry-After` when it sends one).
 * A refused key (401) or endpoint (403), a body of another shape or a malformed one fail at once.
 */
export async function finnhubGet<T>(
  options: FinnhubOptions,
  path: string,
  params: Record<string, string>,
  schema: z.ZodType<T>,
  retry: RetryPolicy,
): Promise<VendorOutcome<T>> {
  const url = `${options.baseUrl}/api/v1${path}?${new URLSearchParams(params)}`;
  let outcome: Attempt<T> = { ok: false, reason: "no attempt made", denied: false };
  for (let attempt = 1; attempt <= retry.attempts; attempt++) {
    let waitMs = retry.delayMs * 2 ** (attempt - 1);
    outcome = await attemptGet(options, url, schema, (ms) => (waitMs = Math.max(waitMs, ms)));
    if (outcome.ok || !outcome.retryable) break;
    if (attempt < retry.attempts) await new Promise((r) => setTimeout(r, Math.min(waitMs, retry.maxWaitMs)));
  }
  const { retryable: _, ...result } = outcome;
  return result;
}

async function attemptGet<T>(
  options: FinnhubOptions,
  url: string,
  schema: z.ZodType<T>,
  retryAfter: (ms: number) => void,
): Promise<Attempt<T>> {
  const failed = (reason: string, retryable: boolean, denied = false): Attempt<T> => ({ ok: false, reason, denied, retryable });
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { "X-Finnhub-Token": options.token, Accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    return failed(timedOut ? `timed out after ${options.timeoutMs} ms` : "network error", true);
  }
  if (!res.ok) {
    await res.body?.cancel();
    if (res.status === 429) {
      const seconds = Number(res.headers.get("retry-after"));
      if (seconds > 0) retryAfter(seconds * 1000);
    }
    // 401 refuses the key; 403 only this endpoint (a plan without it): the other calls may still be answered.
    return failed(`HTTP ${res.status}`, res.status >= 500 || res.status === 429, res.status === 401);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return failed("malformed JSON body", false);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) return failed("unexpected body shape", false);
  return { ok: true, value: parsed.data };
}
