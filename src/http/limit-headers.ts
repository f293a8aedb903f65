import type { Context } from "hono";
import type { RateState } from "../limits/admission";

/** The X-RateLimit-* trio, on every response that passed the rate-limit stage. */
export function rateHeaders(rate: RateState): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(rate.limit),
    "X-RateLimit-Remaining": String(rate.remaining),
    "X-RateLimit-Reset": String(rate.resetSeconds),
  };
}

export function setRateHeaders(headers: Headers, rate: RateState): void {
  for (const [name, value] of Object.entries(rateHeaders(rate))) headers.set(name, value);
}

/** For list handlers: marks the response when a plan clamp changed the request. */
export function markClamped(c: Context): void {
  c.header("X-Limit-Clamped", "true");
}

/** Clamps `requested` to `max`, marking the response when it had to. */
export function clampToPlan(c: Context, requested: number, max: number): number {
  if (requested <= max) return requested;
  markClamped(c);
  return max;
}
