import { marketState, marketVersions } from "../../src/db/schema";
import { sessionCloseAt } from "../../src/domain/calendar";
import type { IngestDatabase } from "../db/database";
import { queryRows, selectList, type Selected, sqlNames } from "../db/rows";
import type { IngestLog } from "../log";
import { repeatUntilAborted } from "../pipeline/periodic";
import { isRolled, rollSession } from "./roll-session";

/** How long after a session's close it is rolled: index options quote until 16:15 ET, and the feed's last minutes settle. */
export const ROLL_AFTER_MS = 30 * 60_000;
const CHECK_EVERY_MS = 60_000;

const [MARKET_STATE, S] = sqlNames(marketState);
const [MARKET_VERSIONS, V] = sqlNames(marketVersions);

/**
 * The session the market holds, if it is due for its roll at `now`: its close was `ROLL_AFTER_MS`
 * ago, its data has been written up to the close (an ingestor restarted after a night away rolls it
 * at the session barrier, once the feed's replay has written the session's last hours), nothing
 * later has been written (a feed laid on the wall clock, like the demo's, is not a session that
 * ended), and it has not been rolled whole.
 */
export async function dueSession(db: IngestDatabase, now: Date): Promise<string | null> {
  // `newest` a timestamptz as the drivers read it (a Date); never null, `as_of` is not.
  const [state] = await queryRows<Selected<typeof marketState, "sessionDate"> & { newest: Date }>(
    db.typedQuery,
    `select ${selectList(marketState, ["sessionDate"], "s")}, greatest(s.${S.asOf}, (select max(v.${V.asOf}) from ${MARKET_VERSIONS} v)) as newest
       from ${MARKET_STATE} s where s.${S.id} = 1`,
  );
  const session = state?.sessionDate;
  if (!session) return null;
  const closeAt = sessionCloseAt(session).getTime();
  const rollAt = closeAt + ROLL_AFTER_MS;
  const newest = state.newest.getTime();
  if (now.getTime() < rollAt || !(newest >= closeAt) || newest >= rollAt) return null;
  return (await isRolled(db.typedQuery, session)) ? null : session;
}

/**
 * Rolls each session the market holds once it is due (`dueSession`), checking every minute until
 * `signal` is aborted. A roll cut short (a crash, the database away) is resumed at the next check
 * from the step it reached.
 */
export async function followSessionRolls(
  db: IngestDatabase,
  options: { log: IngestLog; signal: AbortSignal; now?: () => Date; everyMs?: number },
): Promise<void> {
  const { log, signal } = options;
  await repeatUntilAborted(
    signal,
    options.everyMs ?? CHECK_EVERY_MS,
    async () => {
      const session = await dueSession(db, options.now?.() ?? new Date());
      if (session === null) return;
      const started = performance.now();
      const steps = await rollSession(db, session);
      log({ event: "session_rolled", session, steps, ms: Math.round(performance.now() - started) });
    },
    (error) => log({ event: "session_roll_failed", error: error instanceof Error ? error.message : String(error) }),
  );
}
