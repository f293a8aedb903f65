import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { replayFiles } from "../ingest/replay/replay";
import { databaseUrl, DEV_DATA_DIR, MIGRATIONS_DIR } from "./lib/config";
import { openBackend } from "./sql-endpoint/sql-backend";

const USAGE = `usage: npm run ingest -- --replay FILE [FILE…] [--speed N] [--feed NAME]

Replays Databento OPRA files (definition, statistics, cbbo-1m, tcbbo; DBN, .dbn.zst or JSON lines)
through the ingestion pipeline into DATABASE_URL, else .dev/pglite: trades become flow prints,
minute samples quotes with IV and Greeks, statistics open interest, definitions the contracts.
--speed N paces the files at N times their own time (default: as fast as the database takes them).
--feed names the feed's positions (default databento-opra): a rerun resumes after them.
Logs are JSON lines on stdout; Ctrl-C stops reading and writes what was read.`;

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      options: {
        replay: { type: "string", multiple: true },
        speed: { type: "string" },
        feed: { type: "string" },
        help: { type: "boolean" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const files = [...(args.values.replay ?? []), ...args.positionals];
  const speed = args.values.speed === undefined ? Infinity : Number(args.values.speed);
  if (args.values.help || files.length === 0 || !(speed > 0)) {
    console.error(USAGE);
    return args.values.help ? 0 : 2;
  }
  const url = databaseUrl();
  if (!url) mkdirSync(dirname(DEV_DATA_DIR), { recursive: true });
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  try {
    await backend.migrate(MIGRATIONS_DIR);
    const log = (fields: Record<string, unknown>) => console.log(JSON.stringify({ at: new Date().toISOString(), ...fields }));
    const report = await replayFiles(backend, files, { feed: args.values.feed ?? "databento-opra", speed, log, signal: stop.signal });
    log({ event: "ingest_replayed", files, ...report });
  } finally {
    await backend.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
