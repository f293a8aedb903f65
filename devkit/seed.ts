import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import cliProgress from "cli-progress";
import { databaseUrl, DEV_DATA_DIR, MIGRATIONS_DIR, parseArgs } from "../ingest/cli/config";
import { seedMarket, type MarketSize } from "./generator/seed-market";
import { tellEdge } from "../ingest/admin-api/tell-edge";
import { openBackend } from "../ingest/db/sql-backend";
import { runCli } from "../ingest/cli/run-cli";

const SIZES: MarketSize[] = ["test", "demo", "full"];

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const size = (args.get("size") ?? "demo") as MarketSize;
  if (!SIZES.includes(size)) throw new Error(`--size must be one of ${SIZES.join(", ")}`);
  const seed = Number(args.get("seed") ?? 1);
  if (!Number.isInteger(seed)) throw new Error("--seed must be an integer");
  const sessionDate = args.get("session-date");
  if (sessionDate !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(sessionDate)) throw new Error("--session-date must be YYYY-MM-DD");

  const url = databaseUrl();
  if (!url) mkdirSync(dirname(DEV_DATA_DIR), { recursive: true });
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  const started = performance.now();
  try {
    await backend.migrate(MIGRATIONS_DIR);
    const bar = new cliProgress.SingleBar(
      {
        format: "seeding {bar} {percentage}% | {value}/{total} underlyings | {duration_formatted}",
        stream: process.stderr,
        noTTYOutput: true,
        notTTYSchedule: 10_000,
      },
      cliProgress.Presets.shades_classic,
    );
    let started_ = false;
    const report = await seedMarket(backend, {
      size,
      seed,
      sessionDate,
      onProgress: (done, total) => {
        if (!started_) {
          bar.start(total, 0);
          started_ = true;
        }
        bar.update(done);
      },
    });
    bar.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `seeded ${size} market (seed ${seed}, session ${report.sessionDate}) into ${backend.kind} in ${seconds} s: ` +
        `${report.underlyings} underlyings, ${report.contracts} contracts, ${report.contractHistoryRows} contract-history rows, ${report.flowPrints} flow prints; ${await tellEdge()}`,
    );
  } finally {
    await backend.close();
  }
}

runCli(main);
