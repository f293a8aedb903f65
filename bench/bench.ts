import { databaseUrl, DEV_DATA_DIR, parseArgs } from "../ingest/cli/config";
import { openBackend } from "../ingest/db/sql-backend";
import { measureLatency, measureThroughput, requester, tally, type Latency, type Stack } from "./measure";
import { benchIngest } from "./ingest";
import { reportGexComputation, reportRawSql } from "./raw-sql";
import { FLOOR, marketTargets, TARGETS, USAGE, type Target } from "./targets";
import { BenchStacks } from "./stack";
import { verdict } from "./verdict";
import { runCli } from "../ingest/cli/run-cli";

interface Figures extends Latency {
  rps: number;
}

/** `--db-rtt 0,40`: the distances to run side by side, ascending. */
function distances(arg: string | undefined): number[] {
  const list = (arg ?? "0").split(",").map((x) => Number(x.trim()));
  if (list.some((x) => !Number.isFinite(x) || x < 0)) throw new Error(`--db-rtt takes non-negative milliseconds, comma-separated: ${arg}`);
  return [...new Set(list)].sort((a, b) => a - b);
}

/** Per endpoint: each distance's figures side by side, then the targets' verdict at the farthest one. */
function printTable(stacks: Stack[], results: [Target, Figures[]][]): void {
  const far = stacks.length - 1;
  const near = stacks.findIndex((s) => s.rtt === 0);
  const usage = results.find(([t]) => t === USAGE)?.[1];
  const group = (s: Stack) => `rtt ${s.rtt}: p50 ttfb p99 req/s trips m+c`;
  console.log(`\n${"".padEnd(38)}${stacks.map((s) => group(s).padStart(48)).join("")}`);
  console.log(
    "endpoint".padEnd(38) +
      stacks
        .map(() => "p50 ms".padStart(9) + "ttfb".padStart(8) + "p99 ms".padStart(9) + "req/s".padStart(8) + "trips".padStart(14))
        .join("") +
      `target@${stacks[far]!.rtt}`.padStart(12) +
      "met".padStart(5) +
      "errors".padStart(8),
  );
  const verdicts = results.map(([t, figures]) =>
    t.kind && usage ? verdict(t.kind, stacks[far]!.rtt, figures[far]!, usage[far]!, near < 0 ? undefined : figures[near]) : null,
  );
  for (const [k, [t, figures]] of results.entries()) {
    const v = verdicts[k];
    const errors = figures.reduce((n, f) => n + Object.values(f.errors).reduce((a, b) => a + b, 0), 0);
    console.log(
      t.name.padEnd(38) +
        figures
          .map(
            (f) =>
              f.p50.toFixed(2).padStart(9) +
              f.ttfb50.toFixed(2).padStart(8) +
              f.p99.toFixed(2).padStart(9) +
              f.rps.toFixed(0).padStart(8) +
              `${f.trips[0].toFixed(2)}+${f.trips[1].toFixed(2)}`.padStart(14),
          )
          .join("") +
        (v ? `≤ ${v.bound.toFixed(2)}` : "").padStart(12) +
        (v ? (v.met ? "yes" : "NO") : "").padStart(5) +
        String(errors).padStart(8),
    );
  }
  for (const [k, [t, figures]] of results.entries()) {
    for (const [j, f] of figures.entries()) {
      const outcomes = Object.entries(f.errors).map(([outcome, n]) => `${outcome} ×${n}`);
      if (outcomes.length > 0) console.log(`unexpected answers, ${t.name} at rtt ${stacks[j]!.rtt}: ${outcomes.join(", ")}`);
    }
    const v = verdicts[k];
    if (v && !v.met) console.log(`target missed, ${t.name}: ${v.missed.join("; ")}`);
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const streaming = process.argv.slice(2).includes("stream");
  if (process.argv.slice(2).includes("ingest") || streaming) {
    const number = (name: string, fallback: number) => {
      const value = Number(args.get(name) ?? fallback);
      if (!(value > 0)) throw new Error(`--${name} takes a positive number`);
      return value;
    };
    const nice = Number(args.get("ingest-nice") ?? 0);
    if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new Error("--ingest-nice takes an integer from 0 to 19");
    return benchIngest({
      ingestNice: nice,
      ingestLog: args.get("ingest-log"),
      // ~4,100 trades/s offered: the target rate, at which visibility is measured (40× offers ~5,100/s, past what
      // this 2-core machine sustains with the feed, PostgreSQL and the API on it: latency then grows without bound).
      speed: number("speed", 32),
      tradesPerSecond: number("trades-per-second", 135),
      minutes: Math.round(number("minutes", 391)),
      quoteMinutes: Math.round(number("quote-minutes", 5)),
      idleSeconds: number("idle-seconds", 60),
      // `npm run bench -- stream`: the ingest benchmark with 1,000 stream clients through its trades phase.
      streams: streaming ? Math.round(number("streams", 1_000)) : 0,
      resumers: Math.round(number("resumers", 100)),
    });
  }
  const seconds = Number(args.get("seconds") ?? 10);
  const connections = Number(args.get("connections") ?? 2);
  const samples = Number(args.get("samples") ?? 500);
  const only = args.get("only");
  // The distances to the database's region, each added to every SQL request of its own stack (0: the database next door).
  const rtts = distances(args.get("db-rtt"));
  const url = databaseUrl();
  if (!url) console.warn("DATABASE_URL is not set: benchmarking on the embedded PGlite (figures for reference only).");
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  const { rows } = await backend
    .typedQuery("select count(*)::int as contracts from option_quotes")
    .catch(() => ({ rows: [] as Record<string, unknown>[] }));
  const contracts = (rows[0]?.contracts as number | undefined) ?? 0;
  if (contracts === 0) throw new Error("no market data: run `npm run seed -- --size full` (with DATABASE_URL) first");
  const run = new BenchStacks(backend);
  const stacks = run.stacks;
  try {
    // One after the other: two `wrangler dev` starting at once can race for the same internal port.
    for (const rtt of rtts) await run.start(rtt);
    const keys = await run.accountKeys();
    console.log(
      `dataset: ${contracts} contracts on ${backend.kind}; database round trip +${rtts.join(" ms and +")} ms, side by side; ` +
        `latency from ${samples} interleaved rounds of sequential requests, throughput from ${seconds} s at ${connections} connections\n`,
    );
    const market = await marketTargets(backend);
    const targets = [FLOOR, ...[...TARGETS, ...market.targets].filter((t) => !only || t.name.includes(only) || t === USAGE)];
    // Warm-up: every key once on every stack (its first use reads the control database), and the floor.
    for (const s of stacks) {
      const warm = requester(s.url, USAGE, keys);
      for (let i = 0; i < keys.length; i++) await warm.timed(i);
    }
    await measureLatency(stacks, [FLOOR], keys, 200);
    const latency = await measureLatency(stacks, targets, keys, samples);
    const results: [Target, Figures[]][] = [];
    for (const [k, t] of targets.entries()) {
      const figures: Figures[] = [];
      for (const [j, s] of stacks.entries()) {
        const load = await measureThroughput(s.url, t, keys, samples, seconds, connections);
        const l = latency[k]![j]!;
        const errors = { ...l.errors };
        for (const [outcome, n] of Object.entries(load.errors)) tally(errors, outcome, n);
        figures.push({ ...l, rps: load.rps, errors });
      }
      results.push([t, figures]);
    }
    printTable(stacks, results);
    const p50s = (key: string) => results.find(([t]) => t.name.includes(key))?.[1].map((f) => f.p50);
    await reportRawSql(
      backend,
      stacks.map((s) => ({ rtt: s.rtt, port: s.sql.port })),
      run.sqlEndpointPassword,
      market,
      p50s,
      samples,
    );
    reportGexComputation();
  } finally {
    await run.stop();
    await backend.close();
  }
}

runCli(main);
