import { parseArgs } from "node:util";
import { marketSession } from "../db/market-session";
import { rollSession } from "../session/roll-session";
import { isCalendarDate, isSession } from "../../src/domain/calendar";
import { openMarketBackend } from "./market-backend";
import { runCli } from "./run-cli";

const USAGE = `usage: npm run roll [-- --session YYYY-MM-DD]

Rolls a session that has ended into the history of DATABASE_URL, else .dev/pglite (docs/ingest.md,
"The session roll"): what the ingestor does 30 minutes after each close, by hand — to resume a roll
that failed, or to repair. Default: the market's session. Steps already done are skipped.`;

async function main(): Promise<number> {
  let session: string | undefined;
  try {
    session = parseArgs({ options: { session: { type: "string" } } }).values.session;
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (session !== undefined && !(isCalendarDate(session) && isSession(session))) {
    console.error(`--session must name a trading session (YYYY-MM-DD).\n\n${USAGE}`);
    return 2;
  }
  const backend = await openMarketBackend();
  try {
    const rolled = session ?? (await marketSession(backend.typedQuery));
    if (!rolled) {
      console.error("no market: seed or load one first");
      return 1;
    }
    console.log(JSON.stringify({ event: "session_roll_started", session: rolled }));
    const steps = await rollSession(backend, rolled);
    console.log(JSON.stringify({ event: "session_rolled", session: rolled, steps }));
  } finally {
    await backend.close();
  }
  return 0;
}

runCli(main);
