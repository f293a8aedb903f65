import { previousSessions } from "../../src/domain/calendar";
import { feedNewest } from "./flow-fixture";

/** The feed's newest session and trade time, and the 7 retained sessions, oldest first (the newest is the feed's). */
export async function retainedSessions(): Promise<{ newest: string; asOf: string; sessions: string[] }> {
  const { session: newest, asOf } = await feedNewest();
  return { newest, asOf, sessions: previousSessions(newest, 7) };
}
