import { createInterface } from "node:readline";
import { receiveTime } from "../ingest/sources/opra/feed-files";
import { loadStreamMarket, rawSymbols, sessionRecords } from "../devkit/generator/session-stream";
import { LocalGateway } from "../devkit/gateway/local-gateway";
import { openBackend } from "../ingest/db/sql-backend";
import { databaseUrl } from "../ingest/cli/config";
import { feedTimeAt, planFromWire, type FeedPlan } from "./feed-clock";
import { runCli } from "../ingest/cli/run-cli";

/**
 * The ingest benchmark's feed, in a process of its own (its generator's CPU is not the API's or
 * the ingestor's): the full-size market's session from `DATABASE_URL`, served by the local gateway
 * on the plan's clock. The key comes in `BENCH_FEED_KEY`, the plan as JSON in `BENCH_FEED_PLAN`;
 * the clock holds at the plan's start until a line `go` arrives on stdin. Reports JSON lines on stdout.
 */
async function main(): Promise<void> {
  const plan = planFromWire(JSON.parse(process.env.BENCH_FEED_PLAN ?? "") as FeedPlan<string>);
  const backend = await openBackend({ databaseUrl: databaseUrl(), dataDir: "" });
  const market = await loadStreamMarket(backend.typedQuery);
  await backend.close();
  let goAt: number | null = null;
  const gateway = await LocalGateway.start({
    apiKey: process.env.BENCH_FEED_KEY ?? "",
    records: async function* (from, schemas) {
      const session = sessionRecords(market, {
        start: plan.start,
        tradesPerSecond: plan.tradesPerSecond,
        minutes: plan.minutes,
        // The opening minute (the day's spots, as every session begins), then the real-time minutes;
        // none for a session without minute samples (the trades' own session).
        sampled: (minute) => schemas.has("cbbo-1m") && (minute === plan.opening || minute >= plan.samplesFrom),
      });
      for (const record of session) if (from === null || receiveTime(record) >= from) yield record;
    },
    rawSymbol: rawSymbols(market),
    now: () => (goAt === null ? plan.hold : feedTimeAt(plan, Date.now() - goAt)),
  });
  const say = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));
  say({ event: "feed_ready", port: gateway.port, contracts: market.contracts.length });
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === "go" && goAt === null) {
      goAt = Date.now();
      say({ event: "feed_go", wallMs: goAt });
    }
  }
  await gateway.close();
}

runCli(main);
