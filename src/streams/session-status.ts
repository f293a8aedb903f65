import { newYorkInstant, sessionCloseAt, sessionOnOrAfter, sessionOpenAt, todayInNewYork } from "../domain/calendar";
import { REGULAR_CLOSE } from "../domain/market-calendar";

export type SessionPhase = "pre_open" | "open" | "closed";

export interface SessionStatus {
  /** Today's session, or the next one when today has none. */
  date: string;
  phase: SessionPhase;
  earlyClose: boolean;
  opensAt: string;
  closesAt: string;
}

/** Where the market's day stands at `now`: the `status` channel's way to tell a quiet market from a broken feed. */
export function sessionStatus(now: Date): SessionStatus {
  const today = todayInNewYork(now);
  const date = sessionOnOrAfter(today);
  const opensAt = sessionOpenAt(date);
  const closesAt = sessionCloseAt(date);
  const phase: SessionPhase = date !== today || now >= closesAt ? "closed" : now < opensAt ? "pre_open" : "open";
  const regularClose = newYorkInstant(date, REGULAR_CLOSE.hours, REGULAR_CLOSE.minutes);
  return {
    date,
    phase,
    earlyClose: closesAt.getTime() < regularClose.getTime(),
    opensAt: opensAt.toISOString(),
    closesAt: closesAt.toISOString(),
  };
}
