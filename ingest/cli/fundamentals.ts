import { fundamentalsFromEnv } from "../fundamentals/provider-from-env";
import { refreshFundamentals } from "../fundamentals/refresh-fundamentals";
import { todayInNewYork } from "../../src/domain/calendar";
import { openMarketBackend } from "./market-backend";
import { runCli } from "./run-cli";

const USAGE = `usage: FINNHUB_TOKEN=… npm run fundamentals

Refreshes the earnings and dividend calendars and the companies' fundamentals of DATABASE_URL, else
.dev/pglite, from Finnhub now (docs/ingest.md, "Calendars and fundamentals"): what the ingestor does
each day from 06:00 ET, by hand. FINNHUB_URL and FINNHUB_CALLS_PER_MINUTE are optional.`;

async function main(): Promise<number> {
  if (process.argv.length > 2) {
    console.error(USAGE);
    return 2;
  }
  const vendor = fundamentalsFromEnv(process.env);
  if (vendor === null || "error" in vendor) {
    console.error(`${vendor?.error ?? "FINNHUB_TOKEN is not set."}\n\n${USAGE}`);
    return 2;
  }
  const backend = await openMarketBackend();
  try {
    const report = await refreshFundamentals(backend, vendor.provider, { today: todayInNewYork(), callsPerMinute: vendor.callsPerMinute });
    console.log(JSON.stringify({ event: "fundamentals_refreshed", ...report }));
  } finally {
    await backend.close();
  }
  return 0;
}

runCli(main, (err) => JSON.stringify({ event: "fundamentals_refresh_failed", error: err instanceof Error ? err.message : String(err) }));
