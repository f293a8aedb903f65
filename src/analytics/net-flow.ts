/**
 * 1-minute cumulative net flow (ANALYTICS.md §4.5): per minute, ask-side minus bid-side premium
 * of calls and of puts, summed from the first minute of the window.
 */

/** One minute's net amounts (not cumulative). */
export interface MinuteNet {
  /** Start of the minute, epoch ms (UTC, on a whole minute). */
  minute: number;
  netCall: number;
  netPut: number;
  netVolume: number;
  /** Contracts of every counted print, whatever its side. */
  volume: number;
}

export interface NetFlowPoint {
  t: number;
  netCallPremium: number;
  netPutPremium: number;
  netVolume: number;
}

export interface NetFlowSeries {
  points: NetFlowPoint[];
  volume: number;
  ncp: number;
  npp: number;
}

const cents = (x: number) => Math.round(x * 100) / 100;

/** Running sums over minutes in time order; the summary's totals are the last point's. */
export function cumulativeNetFlow(minutes: readonly MinuteNet[]): NetFlowSeries {
  let call = 0;
  let put = 0;
  let net = 0;
  let volume = 0;
  const points: NetFlowPoint[] = [];
  for (const m of [...minutes].sort((a, b) => a.minute - b.minute)) {
    call += m.netCall;
    put += m.netPut;
    net += m.netVolume;
    volume += m.volume;
    points.push({ t: m.minute, netCallPremium: cents(call), netPutPremium: cents(put), netVolume: net });
  }
  return { points, volume, ncp: cents(call), npp: cents(put) };
}
