/** The account's rate-limit state after a call (`X-RateLimit-*`); absent on answers refused before the limiter. */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

/** What every result and every error carries besides its body. */
export interface ResponseMeta {
  status: number;
  requestId: string | null;
  rateLimit: RateLimit | null;
  /** `X-Limit-Clamped: true`: the plan clamped `limit` or the date window. */
  limitClamped: boolean;
  /** Seconds, from `Retry-After` (429, 503). */
  retryAfterSeconds: number | null;
  /** Requests sent for this call, retries included. */
  attempts: number;
  headers: Headers;
}

/** A successful call: the typed body and its metadata. */
export interface ApiResult<T> {
  data: T;
  meta: ResponseMeta;
}

const integer = (value: string | null): number | null => (value !== null && /^\d+$/.test(value) ? Number(value) : null);

/** `Retry-After` as seconds: delay-seconds or an HTTP date (RFC 9110). */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get("Retry-After");
  if (value === null) return null;
  const seconds = integer(value.trim());
  if (seconds !== null) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

export function responseMeta(response: Response, attempts: number): ResponseMeta {
  const h = response.headers;
  const limit = integer(h.get("X-RateLimit-Limit"));
  const remaining = integer(h.get("X-RateLimit-Remaining"));
  const reset = integer(h.get("X-RateLimit-Reset"));
  return {
    status: response.status,
    requestId: h.get("X-Request-ID"),
    rateLimit: limit !== null && remaining !== null && reset !== null ? { limit, remaining, resetSeconds: reset } : null,
    limitClamped: h.get("X-Limit-Clamped") === "true",
    retryAfterSeconds: retryAfterSeconds(h),
    attempts,
    headers: h,
  };
}
