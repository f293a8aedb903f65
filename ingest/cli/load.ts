import { DEFAULT_RISK_FREE_RATE } from "../../src/domain/market-clock";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseQuoteTable } from "../sources/cboe/quote-table";
import { parseCboeTrades, tradeEvents } from "../sources/cboe/trades";
import { writeTrades } from "../flow/write-trades";
import { parseArgs } from "./config";
import { openMarketBackend } from "./market-backend";
import { tellEdge } from "../admin-api/tell-edge";
import { writeQuoteTable } from "../sources/cboe/write-quote-table";
import type { SqlBackend } from "../db/sql-backend";
import { runCli } from "./run-cli";

const USAGE = `usage: npm run load -- cboe-quote-table FILE [--as-of YYYY-MM-DD] [--rate 0.043] [--dividend-yield 0] [--json]
       npm run load -- cboe-trades FILE [--rate 0.043] [--dividend-yield 0] [--json]

cboe-quote-table: a Cboe delayed-quote "quote table" CSV into the option quotes.
cboe-trades: a Cboe DataShop "Option Trades" CSV into the flow prints, each print classified
against its own NBBO.
Both write to DATABASE_URL, else .dev/pglite. Malformed rows are reported (line and reason) and
skipped; the rest is loaded. Loading twice is idempotent.`;

type Args = Map<string, string>;
type Rejected = { row: number; reason: string }[];

function printRejected(rejected: Rejected): void {
  for (const r of rejected) console.log(`  rejected line ${r.row}: ${r.reason}`);
  if (rejected.length) console.log(`${rejected.length} rows rejected`);
}

async function loadQuoteTable(backend: SqlBackend, file: string, args: Args, rate: number, dividendYield: number): Promise<void> {
  const asOf = args.get("as-of");
  if (asOf !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new Error("--as-of must be YYYY-MM-DD");
  const table = parseQuoteTable(readFileSync(file, "utf8"), { asOf });
  const loaded = await writeQuoteTable(backend, basename(file), table, { rate, dividendYield });
  const edge = await tellEdge();
  const report = {
    file,
    underlying: table.underlying,
    sessionDate: table.sessionDate,
    spot: table.spot,
    loaded,
    rejected: table.rejected,
    edge,
  };
  if (args.has("json")) return console.log(JSON.stringify(report));
  console.log(`loaded ${loaded} contracts of ${table.underlying} (session ${table.sessionDate}, spot ${table.spot}) from ${file}; ${edge}`);
  printRejected(table.rejected);
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

async function loadTrades(backend: SqlBackend, file: string, args: Args, rate: number, dividendYield: number): Promise<void> {
  const trades = parseCboeTrades(readFileSync(file, "utf8"));
  // The pipeline's trade writer, one transaction (a file loads whole or not at all), the file its own
  // feed: a second load finds every trade at or before its position and writes nothing.
  const { prints, skipped } = await writeTrades(backend, `cboe-datashop:${basename(file)}`, tradeEvents(trades), { rate, dividendYield });
  const loaded = prints.length;
  const report = {
    file,
    underlyings: [...new Set(prints.map((p) => p.trade.underlying))].sort(),
    sessionDates: [...new Set(prints.map((p) => p.trade.sessionDate))].sort(),
    loaded,
    alreadyLoaded: skipped,
    side: countBy(prints, (p) => p.side),
    executionType: countBy(prints, (p) => p.executionType),
    printClass: countBy(prints, (p) => p.printClass),
    ivSource: countBy(prints, (p) => p.ivSource),
    openInterestSource: countBy(prints, (p) => p.openInterestSource),
    rejected: trades.rejected,
  };
  if (args.has("json")) return console.log(JSON.stringify(report));
  if (loaded === 0 && skipped > 0) return console.log(`nothing new in ${file}: its ${skipped} trades were loaded before`);
  console.log(`loaded ${loaded} prints of ${report.underlyings.join(", ")} (sessions ${report.sessionDates.join(", ")}) from ${file}`);
  for (const field of ["side", "executionType", "printClass", "ivSource", "openInterestSource"] as const) {
    console.log(
      `  ${field}: ${Object.entries(report[field])
        .map(([k, n]) => `${k} ${n}`)
        .join(", ")}`,
    );
  }
  printRejected(trades.rejected);
}

const FORMATS = { "cboe-quote-table": loadQuoteTable, "cboe-trades": loadTrades } as const;

async function main(): Promise<number> {
  const [format, file] = process.argv.slice(2);
  const args = parseArgs(process.argv.slice(2));
  if (!format || !(format in FORMATS) || !file) {
    console.error(USAGE);
    return 2;
  }
  const rate = Number(args.get("rate") ?? DEFAULT_RISK_FREE_RATE);
  const dividendYield = Number(args.get("dividend-yield") ?? 0);
  if (!Number.isFinite(rate) || !Number.isFinite(dividendYield))
    throw new Error("--rate and --dividend-yield must be decimals (0.043 = 4.3%)");

  const backend = await openMarketBackend();
  try {
    await FORMATS[format as keyof typeof FORMATS](backend, file, args, rate, dividendYield);
  } finally {
    await backend.close();
  }
  return 0;
}

runCli(main);
