import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { RISK_FREE_RATE } from "./generator/market";
import { parseQuoteTable, priceContracts } from "./loaders/cboe-quote-table";
import { databaseUrl, DEV_DATA_DIR, MIGRATIONS_DIR, parseArgs } from "./lib/config";
import { writeQuoteTable } from "./lib/load-quote-table";
import { openBackend } from "./lib/sql-backend";

const USAGE = `usage: npm run load -- cboe-quote-table FILE [--as-of YYYY-MM-DD] [--rate 0.043] [--dividend-yield 0] [--json]

Loads a Cboe delayed-quote "quote table" CSV into the market tables (DATABASE_URL, else .dev/pglite).
Malformed rows are reported (line and reason) and skipped; the rest is loaded. Loading twice is idempotent.`;

async function main(): Promise<number> {
  const [format, file] = process.argv.slice(2);
  const args = parseArgs(process.argv.slice(2));
  if (format !== "cboe-quote-table" || !file) {
    console.error(USAGE);
    return 2;
  }
  const asOf = args.get("as-of");
  if (asOf !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new Error("--as-of must be YYYY-MM-DD");
  const rate = Number(args.get("rate") ?? RISK_FREE_RATE);
  const dividendYield = Number(args.get("dividend-yield") ?? 0);
  if (!Number.isFinite(rate) || !Number.isFinite(dividendYield))
    throw new Error("--rate and --dividend-yield must be decimals (0.043 = 4.3%)");

  const table = parseQuoteTable(readFileSync(file, "utf8"), { asOf });
  const priced = priceContracts(table, rate, dividendYield);
  const url = databaseUrl();
  if (!url) mkdirSync(dirname(DEV_DATA_DIR), { recursive: true });
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  try {
    await backend.migrate(MIGRATIONS_DIR);
    const loaded = await writeQuoteTable(backend, table, priced, rate);
    const report = {
      file,
      underlying: table.underlying,
      sessionDate: table.sessionDate,
      spot: table.spot,
      loaded,
      rejected: table.rejected,
    };
    if (args.has("json")) console.log(JSON.stringify(report));
    else {
      console.log(`loaded ${loaded} contracts of ${table.underlying} (session ${table.sessionDate}, spot ${table.spot}) from ${file}`);
      for (const r of table.rejected) console.log(`  rejected line ${r.row}: ${r.reason}`);
      if (table.rejected.length) console.log(`${table.rejected.length} rows rejected`);
    }
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
