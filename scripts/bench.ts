import autocannon from "autocannon";
import { createServer } from "node:net";
import { databaseUrl, DEV_DATA_DIR, parseArgs } from "./lib/config";
import { startNeonHttpServer } from "./lib/neon-http-server";
import { openBackend } from "./lib/sql-backend";
import { startWorker, waitUntilUp } from "./lib/worker-process";

/** One benchmarked endpoint. Later issues add theirs here. */
interface Target {
  name: string;
  path: string;
  headers?: Record<string, string>;
}

const FLOOR: Target = { name: "empty route (floor)", path: "/__bench/floor" };

const TARGETS: Target[] = [
  { name: "GET /health", path: "/health" },
  { name: "GET /public/plans", path: "/public/plans" },
  { name: "GET /openapi.json", path: "/openapi.json" },
  { name: "GET /openapi.json (304)", path: "/openapi.json", headers: { "If-None-Match": "*" } },
  { name: "GET /ready", path: "/ready" },
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a ? a.port : 0));
    });
  });
}

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  errors: number;
}

async function measure(url: string, target: Target, seconds: number, connections: number): Promise<Figures> {
  const result = await autocannon({ url: url + target.path, headers: target.headers, duration: seconds, connections });
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    // A conditional request is expected to answer 304, which autocannon counts as non-2xx.
    errors: result.errors + result.timeouts + (target.headers?.["If-None-Match"] ? 0 : result.non2xx),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const seconds = Number(args.get("seconds") ?? 10);
  const connections = Number(args.get("connections") ?? 2);
  const only = args.get("only");
  const url = databaseUrl();
  if (!url) console.warn("DATABASE_URL is not set: benchmarking on the embedded PGlite (figures for reference only).");
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  const { rows } = await backend.typedQuery("select count(*)::int as contracts from option_quotes").catch(() => ({ rows: [] as Record<string, unknown>[] }));
  const contracts = (rows[0]?.contracts as number | undefined) ?? 0;
  if (contracts === 0) throw new Error("no market data: run `npm run seed -- --size full` (with DATABASE_URL) first");
  const sql = await startNeonHttpServer(backend);
  const worker = startWorker({ port: await freePort(), sqlPort: sql.port, vars: { BENCH_FLOOR: "true" }, quiet: true });
  try {
    await waitUntilUp(`${worker.url}/health`);
    console.log(`dataset: ${contracts} contracts on ${backend.kind}; ${seconds} s per endpoint, ${connections} connections\n`);
    const targets = [FLOOR, ...TARGETS.filter((t) => !only || t.name.includes(only))];
    await measure(worker.url, FLOOR, 2, connections);
    const results: [Target, Figures][] = [];
    for (const t of targets) results.push([t, await measure(worker.url, t, seconds, connections)]);
    const floor = results[0]![1];
    console.log("endpoint".padEnd(34) + "p50 ms".padStart(8) + "p99 ms".padStart(8) + "req/s".padStart(10) + "p50/floor".padStart(11) + "errors".padStart(8));
    for (const [t, f] of results) {
      console.log(
        t.name.padEnd(34) + f.p50.toFixed(2).padStart(8) + f.p99.toFixed(2).padStart(8) + f.rps.toFixed(0).padStart(10) + (f.p50 / floor.p50).toFixed(2).padStart(11) + String(f.errors).padStart(8),
      );
    }
  } finally {
    worker.stop();
    await sql.close();
    await backend.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
