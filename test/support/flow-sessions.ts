import { previousSessions } from "../../src/domain/calendar";
import { retentionStart } from "../../src/domain/flow-window";
import { feedNewest } from "./flow-fixture";
import { etToday } from "./market-db";

/**
 * The feed's newest session and trade time, and the retained sessions, oldest first (the newest
 * is the feed's): those on or after today − 7 days, the earliest `from` served. The seeded market
 * holds one more (its 7 sessions start before that).
 */
export async function retainedSessions(): Promise<{ newest: string; asOf: string; sessions: string[] }> {
  const { session: newest, asOf } = await feedNewest();
  const earliest = retentionStart(etToday());
  return { newest, asOf, sessions: previousSessions(newest, 7).filter((d) => d >= earliest) };
}
