import { cumulativeNetFlow, type MinuteNet, type NetFlowPoint } from "./net-flow";

/**
 * Net flow folded print by print, as the `netflow` stream keeps it: the same sums as the SQL of
 * `/v1/flow/net` (`netFlowMinutesQuery`), per UTC minute of one session, so a streamed point equals
 * the REST point of the same minute.
 */
export interface NetFlowPrint {
  /** Epoch ms. */
  executedAt: number;
  session: string;
  optionType: "call" | "put";
  side: string;
  premium: number;
  size: number;
  /** Only regular prints carry a direction (complex prints count for volume only). */
  regular: boolean;
}

export interface NetFlowFold {
  /** The session the minutes belong to (null before the first print). */
  session: string | null;
  /** The session's minutes with prints, ascending. */
  minutes: MinuteNet[];
}

export const emptyFold = (session: string | null = null): NetFlowFold => ({ session, minutes: [] });

const MINUTE_MS = 60_000;

/**
 * Adds prints (feed order) to a fold. Returns the fold and the earliest minute they touched
 * (null: none); a print of a later session starts the fold over, one of an earlier session is
 * not counted (the series is the newest session's, as REST's default window).
 */
export function foldPrints(fold: NetFlowFold, prints: readonly NetFlowPrint[]): { fold: NetFlowFold; touched: number | null } {
  let session = fold.session;
  const byMinute = new Map(fold.minutes.map((m) => [m.minute, { ...m }]));
  let touched: number | null = null;
  for (const p of prints) {
    if (session !== null && p.session < session) continue;
    if (session === null || p.session > session) {
      session = p.session;
      byMinute.clear();
      touched = null;
    }
    const minute = Math.floor(p.executedAt / MINUTE_MS) * MINUTE_MS;
    const m = byMinute.get(minute) ?? { minute, netCall: 0, netPut: 0, netVolume: 0, volume: 0 };
    const sign = !p.regular ? 0 : p.side === "ask" ? 1 : p.side === "bid" ? -1 : 0;
    if (p.optionType === "call") m.netCall += sign * p.premium;
    else m.netPut += sign * p.premium;
    m.netVolume += sign * p.size;
    m.volume += p.size;
    byMinute.set(minute, m);
    touched = touched === null ? minute : Math.min(touched, minute);
  }
  const minutes = [...byMinute.values()].sort((a, b) => a.minute - b.minute);
  return { fold: { session, minutes }, touched };
}

/** The cumulative points of the fold's minutes from `from` on (a late print moves every later point). */
export function pointsFrom(fold: NetFlowFold, from: number): NetFlowPoint[] {
  return cumulativeNetFlow(fold.minutes).points.filter((p) => p.t >= from);
}
