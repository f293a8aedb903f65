import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { AdminClient } from "./lib/admin-client";
import { databaseUrl, DEV_DATA_DIR, parseArgs } from "./lib/config";
import { startNeonHttpServer } from "./sql-endpoint/neon-http-server";
import { openBackend } from "./sql-endpoint/sql-backend";
import { startWorker, waitUntilUp } from "./lib/worker-process";
import { database, useNeonEndpoint } from "../src/db/client";
import { addDays, todayInNewYork } from "../src/domain/calendar";
import { benchGex } from "../src/analytics/gex-bench";
import { chainPageQuery } from "../src/market/chain";
import { optionQuotesQuery } from "../src/market/option-quotes";
import { screenCountQuery, screenPageQuery } from "../src/market/screener";
import { screenRules, type ScreenBodyInput } from "../src/routes/screener/screen-body";
import { compileScreen } from "../src/screener/compile";
import type { SqlBackend } from "./sql-endpoint/sql-backend";
import { freePort } from "./lib/free-port";

/** One benchmarked endpoint. `auth` requests rotate over many accounts' keys so the 300/min limit is never the bottleneck. */
interface Target {
  name: string;
  /** A path, or one per request (e.g. a new query each time, so nothing is served from a cache). */
  path: string | ((i: number) => string);
  headers?: Record<string, string>;
  auth?: boolean;
  /** Expected status when it is not 200 (e.g. a conditional GET). */
  expect?: number;
  /** A JSON body, sent with POST. */
  body?: unknown;
}

const FLOOR: Target = { name: "empty route (floor)", path: "/__bench/floor", expect: 204 };

/** Later issues add their endpoints here; market endpoints are added once the dataset is known. */
const TARGETS: Target[] = [
  { name: "GET /health", path: "/health" },
  { name: "GET /public/plans", path: "/public/plans" },
  { name: "GET /openapi.json", path: "/openapi.json" },
  { name: "GET /openapi.json (304)", path: "/openapi.json", headers: { "If-None-Match": "*" }, expect: 304 },
  { name: "GET /ready", path: "/ready" },
  { name: "GET /v1/auth/verify (auth + limits)", path: "/v1/auth/verify", auth: true },
  { name: "GET /v1/usage (auth + limits)", path: "/v1/usage", auth: true },
];

const BENCH_ACCOUNTS = 80;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  /** Answers other than the expected status, by status (or `timeout`, `socket error`), both phases together. */
  errors: Record<string, number>;
  /** Database round trips per request in the sequential phase, as the local SQL endpoint counted them: market, control. */
  trips: [market: number, control: number];
}

/** How one target's requests are made: the i-th request's path, headers and body. */
function requester(base: string, t: Target, keys: string[]) {
  // Many simulated clients (a header only, RFC 2544 benchmark range): the per-IP limit of the public routes is not what is measured.
  const headersFor = (i: number) => ({
    "CF-Connecting-IP": `198.18.${(i >> 8) & 255}.${i & 255}`,
    ...(t.body === undefined ? {} : { "Content-Type": "application/json" }),
    ...t.headers,
    ...(t.auth ? { Authorization: `Bearer ${keys[i % keys.length]}` } : {}),
  });
  const pathFor = (i: number) => (typeof t.path === "string" ? t.path : t.path(i));
  const method: "GET" | "POST" = t.body === undefined ? "GET" : "POST";
  const body = t.body === undefined ? undefined : JSON.stringify(t.body);
  const expected = t.expect ?? 200;
  /** One request, timed (sub-millisecond resolution), and its status. */
  const timed = async (i: number): Promise<{ ms: number; status: number }> => {
    const started = performance.now();
    const res = await fetch(base + pathFor(i), { method, body, headers: headersFor(i) });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status };
  };
  return { headersFor, pathFor, method, body, expected, timed };
}

/**
 * Latency: `samples` rounds, each one request to every target in turn, so a slow stretch of a
 * noisy machine falls on all endpoints alike and their medians compare. Round trips are counted
 * around each request (requests are sequential, so the counts are the request's own).
 */
async function measureLatency(
  base: string,
  targets: Target[],
  keys: string[],
  samples: number,
  roundTrips: () => [number, number],
): Promise<Omit<Figures, "rps">[]> {
  const requesters = targets.map((t) => requester(base, t, keys));
  const latencies = targets.map(() => [] as number[]);
  const trips = targets.map(() => [0, 0] as [number, number]);
  const errors = targets.map(() => ({}) as Record<string, number>);
  for (let i = 0; i < samples; i++) {
    for (const [k, r] of requesters.entries()) {
      const before = roundTrips();
      const { ms, status } = await r.timed(i);
      const after = roundTrips();
      latencies[k]!.push(ms);
      trips[k]![0] += after[0] - before[0];
      trips[k]![1] += after[1] - before[1];
      if (status !== r.expected) tally(errors[k]!, String(status), 1);
    }
  }
  return latencies.map((l, k) => {
    l.sort((a, b) => a - b);
    return {
      p50: percentile(l, 50),
      p99: percentile(l, 99),
      trips: [trips[k]![0] / samples, trips[k]![1] / samples] as [number, number],
      errors: errors[k]!,
    };
  });
}

function tally(counts: Record<string, number>, outcome: string, n: number): void {
  if (n > 0) counts[outcome] = (counts[outcome] ?? 0) + n;
}

/** Throughput of one target from autocannon; returns requests/s and the answers other than the expected one. */
async function measureThroughput(
  base: string,
  t: Target,
  keys: string[],
  samples: number,
  seconds: number,
  connections: number,
): Promise<{ rps: number; errors: Record<string, number> }> {
  const r = requester(base, t, keys);
  const load = await autocannon({
    url: base,
    duration: seconds,
    connections,
    // Paths continue after the latency phase's, so a per-request query stays new here too.
    requests: Array.from({ length: 4096 }, (_, i) => ({
      method: r.method,
      body: r.body,
      path: r.pathFor(samples + i),
      headers: r.headersFor(i),
    })),
    expectBody: undefined,
  });
  const errors: Record<string, number> = {};
  for (const [status, { count = 0 }] of Object.entries(load.statusCodeStats ?? {})) {
    if (Number(status) !== r.expected) tally(errors, status, count);
  }
  tally(errors, "timeout", load.timeouts);
  tally(errors, "socket error", load.errors - load.timeouts);
  return { rps: load.requests.average, errors };
}

interface MarketTargets {
  targets: Target[];
  largest: string;
  batch: string[];
}

/** The chain of the underlying with the most contracts, and a batch of 20 of its contracts. */
async function marketTargets(backend: SqlBackend): Promise<MarketTargets> {
  const { rows } = await backend.typedQuery("select underlying, count(*)::int as n from option_quotes group by 1 order by 2 desc limit 1");
  const largest = rows[0]?.underlying as string;
  const picked = await backend.typedQuery(
    "select option_symbol from option_quotes where underlying = $1 order by md5(option_symbol) limit 20",
    [largest],
  );
  const batch = picked.rows.map((r) => r.option_symbol as string);
  console.log(`largest underlying: ${largest} (${rows[0]?.n} contracts)`);
  // Flow: the three newest sessions (market-wide) and the ticker with the most prints in the newest one.
  const sessions = (await backend.typedQuery("select distinct session_date::text as d from flow_prints order by 1 desc limit 3")).rows.map(
    (r) => r.d as string,
  );
  const busiest = (
    await backend.typedQuery(
      "select ticker, count(*)::int as n from flow_prints where session_date = (select max(session_date) from flow_prints) group by 1 order by 2 desc limit 1",
    )
  ).rows[0];
  console.log(`flow: sessions ${sessions.join(", ")}; busiest ticker ${busiest?.ticker} (${busiest?.n} prints in the newest session)`);
  const today = todayInNewYork();
  return {
    largest,
    batch,
    targets: [
      { name: `GET /v1/chain/${largest} (defaults)`, path: `/v1/chain/${largest}`, auth: true },
      {
        name: `GET /v1/chain/${largest} (new query)`,
        path: (i) => `/v1/chain/${largest}?strikeMin=${(i / 1000).toFixed(3)}`,
        auth: true,
      },
      { name: "GET /v1/options/quotes (batch of 20)", path: `/v1/options/quotes?symbols=${batch.join(",")}`, auth: true },
      { name: `GET /v1/options/quotes/{one}`, path: `/v1/options/quotes/${batch[0]}`, auth: true },
      { name: `GET /v1/expirations/${largest}`, path: `/v1/expirations/${largest}`, auth: true },
      {
        name: "GET /v1/flow (market-wide, 3 sessions)",
        path: `/v1/flow?from=${sessions.at(-1)}&to=${sessions[0]}`,
        auth: true,
      },
      { name: `GET /v1/flow?symbol=${busiest?.ticker}`, path: `/v1/flow?symbol=${busiest?.ticker}`, auth: true },
      { name: `GET /v1/flow/net?symbol=${busiest?.ticker}`, path: `/v1/flow/net?symbol=${busiest?.ticker}`, auth: true },
      { name: "GET /v1/earnings (90 days)", path: `/v1/earnings?from=${today}&to=${addDays(today, 89)}`, auth: true },
      { name: `GET /v1/iv/${largest}`, path: `/v1/iv/${largest}`, auth: true },
      { name: "GET /v1/stocks/top-iv", path: "/v1/stocks/top-iv", auth: true },
      { name: "GET /v1/stocks/top-ivr", path: "/v1/stocks/top-ivr", auth: true },
      { name: `GET /v1/gex/${largest}?maxDte=730`, path: `/v1/gex/${largest}?maxDte=730`, auth: true },
      {
        name: `GET /v1/gex/${largest}?maxDte=730 (new window)`,
        path: (i) => `/v1/gex/${largest}?maxDte=730&minDte=${i % 700}`,
        auth: true,
      },
      { name: `GET /v1/gex/${largest}/heatmap?maxDte=730`, path: `/v1/gex/${largest}/heatmap?maxDte=730`, auth: true },
      ...Object.entries(SCREENS).map(([name, body]) => ({
        name: `POST /v1/contracts/screen (${name})`,
        path: "/v1/contracts/screen",
        body,
        auth: true,
      })),
    ],
  };
}

/** The issue's three screens: a wheel (income) screen, a broad activity screen and a text screen. */
const SCREENS: Record<string, unknown> = {
  wheel: {
    type: "put",
    dteMin: 20,
    dteMax: 45,
    deltaMin: -0.3,
    deltaMax: -0.15,
    openInterestMin: 100,
    yieldPercentMin: 1,
    filters: [
      { field: "earnings", operation: "excludeEarnings" },
      { field: "annualizedReturn", operation: "sort", value: "desc" },
    ],
  },
  broad: { type: "call", filters: [{ field: "volumeZScore30d", operation: "sort", value: "desc" }] },
  text: {
    filters: [
      { field: "sector", operation: "like", value: "tech" },
      { field: "premium", operation: "sort", value: "desc" },
    ],
  },
};

/**
 * The same SQL the chain and batch endpoints send (built by the same query builders), timed
 * directly on the database and through the local SQL-over-HTTP endpoint with the production
 * driver, with its plan: the floors the endpoints are compared with.
 */
async function reportRawSql(
  backend: SqlBackend,
  sqlPort: number,
  sqlPassword: string,
  market: MarketTargets,
  endpoints: Map<string, Figures>,
  samples: number,
): Promise<void> {
  const today = todayInNewYork();
  const filter = { symbol: market.largest, expirationFrom: today, expirationTo: addDays(today, 45) };
  // Builds SQL text only; through the local endpoint when a query is awaited.
  useNeonEndpoint("http://{host}:{port}/sql");
  const db = database(`postgresql://bench:${sqlPassword}@127.0.0.1:${sqlPort}/market`);
  const chain = chainPageQuery(db, filter, null, 250);
  const batch = optionQuotesQuery(db, market.batch);
  const time = async (run: () => Promise<unknown>) => {
    const out: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      await run();
      out.push(performance.now() - started);
    }
    return percentile(
      out.sort((a, b) => a - b),
      50,
    );
  };
  const direct = (q: { sql: string; params: unknown[] }) => () =>
    backend.query(
      q.sql,
      q.params.map((p) => String(p)),
    );
  const rows: [string, string, number, number][] = [
    ["chain page (250 + 1 rows)", "chain", await time(direct(chain.toSQL())), await time(() => chainPageQuery(db, filter, null, 250))],
    ["batch of 20", "batch of 20", await time(direct(batch.toSQL())), await time(() => optionQuotesQuery(db, market.batch))],
  ];
  console.log(
    `\nraw SQL, p50 of ${samples} runs: on ${backend.kind} directly, and over the local SQL-over-HTTP endpoint (production driver)`,
  );
  for (const [label, key, sqlMs, httpMs] of rows) {
    const endpoint = [...endpoints].find(([name]) => name.includes(key))?.[1];
    const ratio = endpoint
      ? `; endpoint p50 ${endpoint.p50.toFixed(2)} ms = ${(endpoint.p50 / sqlMs).toFixed(1)}× direct, ${(endpoint.p50 / httpMs).toFixed(1)}× over HTTP`
      : "";
    console.log(`  ${label}: ${sqlMs.toFixed(2)} ms direct, ${httpMs.toFixed(2)} ms over HTTP${ratio}`);
  }
  const screens = Object.entries(SCREENS).flatMap(([name, body]) => {
    const screen = compileScreen(screenRules(body as ScreenBodyInput), new Date());
    return [
      [`screen ${name}: page of 10 + 1`, screenPageQuery(db, screen, 11, 0).toSQL()],
      [`screen ${name}: capped count`, screenCountQuery(db, screen).toSQL()],
    ] as const;
  });
  for (const [label, q] of [["chain page", chain.toSQL()] as const, ["batch of 20", batch.toSQL()] as const, ...screens]) {
    const plan = await backend.query(
      `explain (analyze, buffers) ${q.sql}`,
      q.params.map((p) => String(p)),
    );
    console.log(`\nEXPLAIN ANALYZE — ${label}:\n${plan.rows.map((r) => `  ${r[0]}`).join("\n")}`);
  }
}

/** The GEX computation alone, in this process (CPU time), on a 20,000-contract chain. */
function reportGexComputation(): void {
  const r = benchGex({ contracts: 20_000, runs: 25 });
  console.log(
    `\nGEX computation, ${r.contracts} contracts, median CPU ms of ${r.runs} runs: book ${r.bookMs.toFixed(2)}, ` +
      `flip ${r.flipMs.toFixed(2)}, profile (strikes, walls, flip) ${r.profileMs.toFixed(2)}, heatmap ${r.heatmapMs.toFixed(2)}; ` +
      `book + profile ${(r.bookMs + r.profileMs).toFixed(2)} (target ≤ 5)`,
  );
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const seconds = Number(args.get("seconds") ?? 10);
  const connections = Number(args.get("connections") ?? 2);
  const samples = Number(args.get("samples") ?? 500);
  const only = args.get("only");
  // The distance to the database's region, added to every SQL request (0: the database next door).
  const dbRtt = Number(args.get("db-rtt") ?? 0);
  const url = databaseUrl();
  if (!url) console.warn("DATABASE_URL is not set: benchmarking on the embedded PGlite (figures for reference only).");
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  const { rows } = await backend
    .typedQuery("select count(*)::int as contracts from option_quotes")
    .catch(() => ({ rows: [] as Record<string, unknown>[] }));
  const contracts = (rows[0]?.contracts as number | undefined) ?? 0;
  if (contracts === 0) throw new Error("no market data: run `npm run seed -- --size full` (with DATABASE_URL) first");
  const sqlPassword = randomBytes(24).toString("hex");
  const sql = await startNeonHttpServer(backend, { password: sqlPassword, latencyMs: dbRtt });
  const roundTrips = (): [number, number] => [sql.trips.of("market"), sql.trips.of("control")];
  const adminToken = randomBytes(24).toString("hex");
  const worker = startWorker({
    port: await freePort(),
    sqlPort: sql.port,
    sqlPassword,
    vars: { BENCH_FLOOR: "true", ADMIN_TOKEN: adminToken },
    quiet: process.env.BENCH_WORKER_LOGS !== "true",
  });
  try {
    await waitUntilUp(`${worker.url}/health`, 120_000);
    const admin = new AdminClient(worker.url, adminToken);
    const run = `bench-${Date.now().toString(36)}`;
    const keys: string[] = [];
    for (let i = 0; i < BENCH_ACCOUNTS; i++) {
      const created = await admin.createAccount({ name: `${run}-${i}`, status: "active", plan: "basic" });
      const key = created.ok ? await admin.createKey(`${run}-${i}`) : undefined;
      if (!key?.ok) throw new Error("could not create benchmark accounts");
      keys.push(key.body.key);
    }
    console.log(
      `dataset: ${contracts} contracts on ${backend.kind}; database round trip +${dbRtt} ms; latency from ${samples} sequential requests, throughput from ${seconds} s at ${connections} connections\n`,
    );
    const market = await marketTargets(backend);
    const targets = [FLOOR, ...[...TARGETS, ...market.targets].filter((t) => !only || t.name.includes(only))];
    // Warm-up: every key once (its first use reads the control database), and the floor.
    const warm = requester(worker.url, { name: "warm-up", path: "/v1/usage", auth: true }, keys);
    for (let i = 0; i < keys.length; i++) await warm.timed(i);
    await measureLatency(worker.url, [FLOOR], keys, 200, roundTrips);
    const latency = await measureLatency(worker.url, targets, keys, samples, roundTrips);
    const results: [Target, Figures][] = [];
    for (const [k, t] of targets.entries()) {
      const load = await measureThroughput(worker.url, t, keys, samples, seconds, connections);
      const l = latency[k]!;
      const errors = { ...l.errors };
      for (const [outcome, n] of Object.entries(load.errors)) tally(errors, outcome, n);
      results.push([t, { p50: l.p50, p99: l.p99, trips: l.trips, rps: load.rps, errors }]);
    }
    const floor = results[0]![1];
    console.log(
      "endpoint".padEnd(38) +
        "p50 ms".padStart(8) +
        "p99 ms".padStart(8) +
        "p50−floor".padStart(11) +
        "p50/floor".padStart(11) +
        "req/s".padStart(9) +
        "db trips m+c".padStart(14) +
        "errors".padStart(8),
    );
    for (const [t, f] of results) {
      console.log(
        t.name.padEnd(38) +
          f.p50.toFixed(2).padStart(8) +
          f.p99.toFixed(2).padStart(8) +
          (f.p50 - floor.p50).toFixed(2).padStart(11) +
          (f.p50 / floor.p50).toFixed(2).padStart(11) +
          f.rps.toFixed(0).padStart(9) +
          `${f.trips[0].toFixed(2)}+${f.trips[1].toFixed(2)}`.padStart(14) +
          String(Object.values(f.errors).reduce((a, b) => a + b, 0)).padStart(8),
      );
    }
    for (const [t, f] of results) {
      const outcomes = Object.entries(f.errors).map(([outcome, n]) => `${outcome} ×${n}`);
      if (outcomes.length > 0) console.log(`unexpected answers, ${t.name}: ${outcomes.join(", ")}`);
    }
    await reportRawSql(backend, sql.port, sqlPassword, market, new Map(results.map(([t, f]) => [t.name, f])), samples);
    reportGexComputation();
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
