/** How a call retries a 429 or 503. Nothing else is retried: other errors cannot succeed by waiting. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  maxRetries?: number;
  /** Total time a call may spend waiting between attempts (default 30 s): a longer `Retry-After` is thrown at once. */
  budgetMs?: number;
  /** Up to this much is added to each wait at random (default 250 ms), so clients refused together do not return together. */
  jitterMs?: number;
}

const RETRYABLE_STATUSES = new Set([429, 503]);
/** Without `Retry-After` (a 503 from a proxy): 0.5 s, doubling. */
const BASE_BACKOFF_MS = 500;

/**
 * How long to wait before the next attempt, or null to give up: never for other statuses, never
 * sooner than `Retry-After`, never past the retry count or the budget.
 */
export function retryDelayMs(
  status: number,
  retryAfterSeconds: number | null,
  retriesSoFar: number,
  waitedMs: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number | null {
  const { maxRetries = 2, budgetMs = 30_000, jitterMs = 250 } = options;
  if (!RETRYABLE_STATUSES.has(status) || retriesSoFar >= maxRetries) return null;
  const base = retryAfterSeconds !== null ? retryAfterSeconds * 1000 : BASE_BACKOFF_MS * 2 ** retriesSoFar;
  const delay = base + Math.floor(random() * jitterMs);
  return waitedMs + delay > budgetMs ? null : delay;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
