/**
 * The ingest benchmark's feed: one generated session whose clock runs `speed` times real time
 * (trades only) until `realtimeFrom`, then at real time (minute samples of every contract from
 * `samplesFrom`, trades flowing). Instants are ns since the epoch; `N` is `string` on the wire.
 */
export interface FeedPlan<N = bigint> {
  /** The session's first record: the day's definitions, then its statistics a second later. */
  start: N;
  /** Where the clock waits until the run begins, past the definitions, statistics and opening sample (sent at once, as a morning's catch-up). */
  hold: N;
  realtimeFrom: N;
  /** The first whole minute: its sample gives the day its spots (as every session begins). */
  opening: N;
  samplesFrom: N;
  speed: number;
  tradesPerSecond: number;
  /** Minutes of the session after `start`. */
  minutes: number;
}

const NS_PER_MS = 1_000_000;

export function planToWire(plan: FeedPlan): FeedPlan<string> {
  return {
    ...plan,
    start: String(plan.start),
    hold: String(plan.hold),
    realtimeFrom: String(plan.realtimeFrom),
    opening: String(plan.opening),
    samplesFrom: String(plan.samplesFrom),
  };
}

export function planFromWire(plan: FeedPlan<string>): FeedPlan {
  return {
    ...plan,
    start: BigInt(plan.start),
    hold: BigInt(plan.hold),
    realtimeFrom: BigInt(plan.realtimeFrom),
    opening: BigInt(plan.opening),
    samplesFrom: BigInt(plan.samplesFrom),
  };
}

/** Wall milliseconds the fast part lasts. */
function fastMs(plan: FeedPlan): number {
  return Number(plan.realtimeFrom - plan.hold) / NS_PER_MS / plan.speed;
}

/** The feed's time `elapsedMs` after the run began. */
export function feedTimeAt(plan: FeedPlan, elapsedMs: number): bigint {
  const fast = fastMs(plan);
  if (elapsedMs < fast) return plan.hold + BigInt(Math.round(elapsedMs * plan.speed * NS_PER_MS));
  return plan.realtimeFrom + BigInt(Math.round((elapsedMs - fast) * NS_PER_MS));
}

/** When (ms after the run began) the feed's clock reaches `feedNs`: when the gateway sends a record received then. */
export function elapsedAt(plan: FeedPlan, feedNs: bigint): number {
  if (feedNs <= plan.hold) return 0;
  if (feedNs < plan.realtimeFrom) return Number(feedNs - plan.hold) / NS_PER_MS / plan.speed;
  return fastMs(plan) + Number(feedNs - plan.realtimeFrom) / NS_PER_MS;
}
