import type { Latency } from "./measure";
import type { TargetKind } from "./targets";

/**
 * Market round trips per request an endpoint may show beyond its own (0 or 1): the edge's copy of
 * the snapshot version is reread behind a response once per 30 s, and that trip is counted on
 * whichever request is in flight.
 */
const STRAY_TRIPS = 0.05;
/** The targets' allowance over their reference, ms. */
const SLACK_MS = 3;

export interface Verdict {
  /** The p50 the endpoint must not exceed at the farthest distance, ms. */
  bound: number;
  met: boolean;
  /** What missed, when something did. */
  missed: string[];
}

/**
 * The edge-latency targets at distance `rtt`: a warm endpoint makes no market round trip and has a
 * p50 within the usage endpoint's + 3 ms; a one-trip endpoint makes exactly one and has a p50
 * within the distance + its own p50 next door (`near`, rtt 0) + 3 ms.
 */
export function verdict(kind: TargetKind, rtt: number, far: Latency, usage: Latency, near: Latency | undefined): Verdict | null {
  const missed: string[] = [];
  let bound: number;
  if (kind === "warm") {
    bound = usage.p50 + SLACK_MS;
    if (far.trips[0] >= STRAY_TRIPS) missed.push(`${far.trips[0].toFixed(2)} market trips per request`);
  } else {
    if (near === undefined) return null;
    bound = rtt + near.p50 + SLACK_MS;
    if (Math.abs(far.trips[0] - 1) >= STRAY_TRIPS) missed.push(`${far.trips[0].toFixed(2)} market trips per request, not 1`);
  }
  if (far.p50 > bound) missed.push(`p50 ${(far.p50 - bound).toFixed(2)} ms over`);
  return { bound, met: missed.length === 0, missed };
}
