import { parseArgs } from "node:util";
import { LiveRefusedError } from "../sources/opra/live/live-client";
import { API_KEY_LENGTH, OPRA_FEED } from "../sources/opra/live/protocol";
import { watchLoopHealth } from "../pipeline/loop-health";
import { fundamentalsFromEnv } from "../fundamentals/provider-from-env";
import { replayOutcome } from "../sources/opra/replay";
import { runIngestor, type FeedSpec } from "../run-ingestor";
import { AdminClient } from "../admin-api/admin-client";
import type { IngestLog } from "../log";
import { streamWaker } from "../admin-api/stream-waker";
import { openMarketBackend } from "./market-backend";
import { runCli } from "./run-cli";

const DEFAULT_GATEWAY = "opra-pillar.lsg.databento.com:13000";

const USAGE = `usage: npm run ingest -- --feed databento
       npm run ingest -- --replay FILE [FILE…] [--speed N]

Writes Databento OPRA data (definition, statistics, cbbo-1m, tcbbo) into DATABASE_URL, else
.dev/pglite: trades become flow prints, minute samples quotes with IV and Greeks, statistics open
interest, definitions the contracts; the screener rebuilds the partitions whose quotes moved.
Both resume after the positions stored with the data.
--feed databento  follows the live gateway (DATABENTO_GATEWAY host:port, default ${DEFAULT_GATEWAY};
                  key from DATABENTO_API_KEY), reconnecting with a replay after a drop; a record
                  received over 5 min ahead of the clock or 25 h behind it is dropped.
--clock ISO       with --feed: that fixed instant as the clock, for a synthetic feed on a clock of
                  its own (the benchmark's day); by default the system clock.
--replay FILE…    replays files (DBN, .dbn.zst or JSON lines), one per schema, merged by receive time;
--speed N         paces them at N times their own time (default: as fast as the database takes them).
With FINNHUB_TOKEN set (FINNHUB_URL, FINNHUB_CALLS_PER_MINUTE optional), the earnings and dividend
calendars and the companies' fundamentals are refreshed from Finnhub each day from 06:00 ET.
Logs are JSON lines on stdout; Ctrl-C (or SIGTERM) stops reading and writes what was read.`;

type Plan =
  { kind: "replay"; files: string[]; speed: number } | { kind: "live"; host: string; port: number; apiKey: string; now?: () => Date };

/** The run the arguments and environment ask for, or the usage error to print (exit 2). */
function plan(argv: string[]): Plan | { usage: string; code: number } {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        replay: { type: "string", multiple: true },
        speed: { type: "string" },
        feed: { type: "string" },
        clock: { type: "string" },
        help: { type: "boolean" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    return { usage: `${(error as Error).message}\n\n${USAGE}`, code: 2 };
  }
  if (args.values.help) return { usage: USAGE, code: 0 };
  const files = [...(args.values.replay ?? []), ...args.positionals];
  if (args.values.feed !== undefined) {
    if (args.values.feed !== "databento" || files.length > 0) return { usage: USAGE, code: 2 };
    const apiKey = process.env.DATABENTO_API_KEY ?? "";
    if (apiKey.length !== API_KEY_LENGTH) return { usage: `DATABENTO_API_KEY must hold a ${API_KEY_LENGTH}-character key.`, code: 2 };
    const [host, port] = (process.env.DATABENTO_GATEWAY ?? DEFAULT_GATEWAY).split(":");
    if (!host || !(Number(port) > 0)) return { usage: "DATABENTO_GATEWAY must be host:port.", code: 2 };
    const clock = args.values.clock;
    if (clock === undefined) return { kind: "live", host, port: Number(port), apiKey };
    if (Number.isNaN(Date.parse(clock))) return { usage: `--clock takes an ISO 8601 instant, not ${clock}.`, code: 2 };
    return { kind: "live", host, port: Number(port), apiKey, now: () => new Date(clock) };
  }
  if (args.values.clock !== undefined) return { usage: USAGE, code: 2 };
  const speed = args.values.speed === undefined ? Infinity : Number(args.values.speed);
  if (files.length === 0 || !(speed > 0)) return { usage: USAGE, code: 2 };
  return { kind: "replay", files, speed };
}

async function main(): Promise<number> {
  const run = plan(process.argv.slice(2));
  if ("usage" in run) {
    console.error(run.usage);
    return run.code;
  }
  const vendor = fundamentalsFromEnv(process.env);
  if (vendor && "error" in vendor) {
    console.error(vendor.error);
    return 2;
  }
  const backend = await openMarketBackend();
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  const log = (fields: Record<string, unknown>) => console.log(JSON.stringify({ at: new Date().toISOString(), ...fields }));
  const unwatch = watchLoopHealth(log);
  try {
    const feed: FeedSpec = { ...run, feed: OPRA_FEED };
    const report = await runIngestor(backend, feed, {
      log,
      signal: stop.signal,
      fundamentals: vendor ?? undefined,
      onTradesCommitted: streamWakerFromEnvironment(log),
    });
    if (run.kind === "live") {
      log({ event: "ingest_stopped", ...report });
      return 0;
    }
    const outcome = replayOutcome(report);
    log({ event: "ingest_replayed", ...report, outcome: outcome.summary });
    if (!outcome.stored && !stop.signal.aborted) {
      console.error(`The replay ${outcome.summary}.`);
      return 3;
    }
  } catch (error) {
    if (!(error instanceof LiveRefusedError)) throw error;
    console.error(error.message);
    return 1;
  } finally {
    unwatch();
    await backend.close();
  }
  return 0;
}

runCli(main);

/** The stream shards' wake-up when the service's admin API is known (ADMIN_URL/ADMIN_TOKEN); without it they poll every second. */
function streamWakerFromEnvironment(log: IngestLog): (() => void) | undefined {
  try {
    return streamWaker(AdminClient.fromEnvironment(), log);
  } catch (error) {
    log({ event: "stream_wake_off", reason: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}
