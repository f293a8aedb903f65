/**
 * Generic cell rate algorithm as a pure function of (stored TAT, now, cost, quota), with the
 * clock passed in. Semantics and result fields follow throttled/throttled's GCRARateLimiter:
 * `limit` requests may arrive at once, then one per emission interval.
 */

export interface GcraQuota {
  /** Requests admitted at once from a fresh state (the burst, MaxBurst + 1). */
  limit: number;
  /** Milliseconds between requests at the sustained rate. */
  emissionIntervalMs: number;
}

export interface GcraResult {
  allowed: boolean;
  /** Theoretical arrival time to store (unchanged when rejected), epoch ms. */
  tat: number;
  /** Requests that could be admitted right now. */
  remaining: number;
  /** Milliseconds until the state is back to fresh (Limit == Remaining). */
  resetAfterMs: number;
  /** Milliseconds until this request would conform; -1 when allowed or when it never can. */
  retryAfterMs: number;
}

/** A plan's per-minute allowance as a GCRA quota: the whole minute's requests available at once. */
export function perMinuteQuota(requestsPerMinute: number): GcraQuota {
  return { limit: requestsPerMinute, emissionIntervalMs: 60_000 / requestsPerMinute };
}

export function gcra(storedTat: number | null, now: number, cost: number, quota: GcraQuota): GcraResult {
  const tolerance = quota.emissionIntervalMs * quota.limit;
  const tat = storedTat ?? now;
  const increment = cost * quota.emissionIntervalMs;
  const newTat = Math.max(tat, now) + increment;
  const allowAt = newTat - tolerance;
  let allowed = true;
  let retryAfterMs = -1;
  let ttl: number;
  if (now < allowAt) {
    allowed = false;
    if (increment <= tolerance) retryAfterMs = allowAt - now;
    ttl = tat - now;
  } else {
    ttl = newTat - now;
  }
  const next = tolerance - ttl;
  const remaining = next > -quota.emissionIntervalMs ? Math.trunc(next / quota.emissionIntervalMs) : 0;
  return { allowed, tat: allowed ? newTat : tat, remaining, resetAfterMs: Math.max(ttl, 0), retryAfterMs };
}
