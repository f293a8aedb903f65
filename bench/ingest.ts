import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { setPriority } from "node:os";
import { createInterface } from "node:readline";
import { addDays, newYorkInstant, sessionCloseAt, sessionOnOrAfter, todayInNewYork } from "../src/domain/calendar";
import { API_KEY_LENGTH, OPRA_FEED } from "../ingest/sources/opra/live/protocol";
import { databaseUrl } from "../ingest/cli/config";
import { ingestorArgs } from "./ingestor-process";
import { openBackend, type SqlBackend } from "../ingest/db/sql-backend";
import { elapsedAt, planToWire, type FeedPlan } from "./feed-clock";
import { sampleLatency, VisibilityProbe, watchChanges, watchQuoteMinutes, watchScreenerMinutes, type Phase } from "./ingest-probes";
import { percentile, until } from "./measure";
import { explainWritePath } from "./ingest-explain";
import type { BuildSteps } from "../ingest/screener/partitions";
import { BenchStacks } from "./stack";
import { StreamClients } from "./stream-clients";
import { STREAM_LIMITS } from "../src/streams/limits";
import { marketTargets, USAGE } from "./targets";

const NS_PER_MS = 1_000_000n;
const MINUTE_NS = 60_000n * NS_PER_MS;

export interface IngestBenchOptions {
  /** Times real time the day's trades are replayed at. */
  speed: number;
  /** Trades per second across the market, on average over the session (3.2 M a day at 135). */
  tradesPerSecond: number;
  /** Minutes of the session from 09:29 ET (391: to the close). */
  minutes: number;
  /** The session's last minutes, at real time, with a sample of every contract each minute. */
  quoteMinutes: number;
  /** Seconds of warm-endpoint latency taken before the feed starts. */
  idleSeconds: number;
  /**
   * Niceness of the feed and the ingestor (0: the API's own). On one machine they stand for the
   * vendor's and the ingestor's, which a deployment does not share with the edge.
   */
  ingestNice: number;
  /** A file every line the ingestor logs is appended to, with the wall time it was read (none: not kept). */
  ingestLog?: string;
  /** Stream clients on `/v1/stream` through the trades phase (`npm run bench -- stream`; 0: none). */
  streams: number;
  /** Of those, flow clients cut at random moments of the trades phase and resumed from their cursors. */
  resumers: number;
}

/** A written batch, as the ingestor logged it, with the wall time the benchmark read the line. */
interface Written {
  lane: string;
  events: number;
  ms: number;
  newest: bigint;
  at: number;
}

/** The first whole session after today and after the stored one that closes at 16:00 ET: a full day, never seen by the market. */
/** Underlyings of four screener partitions spread over the market (its first, last and two between): the screener's freshness probes. */
async function screenerProbes(backend: SqlBackend): Promise<string[]> {
  const { rows } = await backend.typedQuery(
    `select (select min(q.underlying) from option_quotes q
              where (p.lower is null or q.underlying >= p.lower) and (p.upper is null or q.underlying < p.upper)) as symbol
       from screener_partitions p order by p.lower nulls first`,
  );
  const symbols = rows.map((r) => r.symbol as string | null).filter((s) => s !== null);
  return [...new Set([0, 1 / 3, 2 / 3, 1].map((f) => symbols[Math.round(f * (symbols.length - 1))]!))];
}

async function feedDay(backend: SqlBackend): Promise<string> {
  const { rows } = await backend.typedQuery(`select session_date::text as d from market_state where id = 1`);
  const stored = (rows[0]?.d as string | undefined) ?? "";
  let day = sessionOnOrAfter(addDays([todayInNewYork(), stored].sort().at(-1)!, 1));
  while (sessionCloseAt(day).getTime() !== newYorkInstant(day, 16).getTime()) day = sessionOnOrAfter(addDays(day, 1));
  return day;
}

/** Contracts of the underlying whose flow the visibility probe polls: about 4,000 of the day's 3 M trades. */
const PROBED_CONTRACTS = 2_000;

/**
 * The underlying the visibility probe polls: one of ordinary size. A trade is written the same way
 * whatever its underlying, but each poll of `/v1/flow/net` aggregates the underlying's whole day:
 * polled ten times a second, SPX's 50,000 prints (0.15–0.3 s a poll) were half of PostgreSQL's
 * work during the trades phase — read load of the probe's own, not the ingestion being measured.
 */
async function probedUnderlying(backend: SqlBackend): Promise<string> {
  const { rows } = await backend.typedQuery(
    `select underlying from option_quotes group by underlying order by abs(count(*) - $1), underlying limit 1`,
    [PROBED_CONTRACTS],
  );
  return rows[0]?.underlying as string;
}

function planFor(day: string, o: IngestBenchOptions): FeedPlan {
  const start = BigInt(newYorkInstant(day, 9, 29).getTime()) * NS_PER_MS;
  const end = start + BigInt(o.minutes) * MINUTE_NS;
  const samplesFrom = end - BigInt(o.quoteMinutes - 1) * MINUTE_NS;
  return {
    start,
    // Past the opening minute's sample: the morning's catch-up brings the definitions, the statistics (quiet for the
    // ingestor's 30 s, so their open interest is switched in) and the day's spots before the clock runs.
    hold: start + MINUTE_NS + 1_000n * NS_PER_MS,
    // A minute of trades at real time before the first full sample.
    realtimeFrom: samplesFrom - MINUTE_NS,
    opening: start + MINUTE_NS,
    samplesFrom,
    speed: o.speed,
    tradesPerSecond: o.tradesPerSecond,
    minutes: o.minutes,
  };
}

/** A node child process (`nodeArgs`) at niceness `nice`, its JSON lines handed to `on`; it inherits the environment plus `env`. */
function child(nodeArgs: string[], env: Record<string, string>, nice: number, on: (fields: Record<string, unknown>) => void): ChildProcess {
  const proc = spawn(process.execPath, nodeArgs, {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  if (nice > 0) setPriority(proc.pid!, nice);
  createInterface({ input: proc.stdout! }).on("line", (line) => {
    try {
      on(JSON.parse(line) as Record<string, unknown>);
    } catch {
      console.log(line);
    }
  });
  return proc;
}

const fmt = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "–");
const p = (values: number[], q: number) =>
  percentile(
    [...values].sort((a, b) => a - b),
    q,
  );

/**
 * `npm run bench -- ingest`: a generated full-size session streamed through the local gateway
 * into the real ingestor (`npm run ingest -- --feed databento`, its own process) over the
 * PostgreSQL database in `DATABASE_URL`, while the API is measured through a Worker. Phases: idle;
 * setup (the day's definitions and statistics, as the morning brings them); trades (the day's
 * trades at `speed` × real time); quotes (the last minutes at real time, every contract sampled
 * each minute, trades flowing). Prints ingest rates, how soon trades and quotes show through the
 * API, warm-endpoint latency per phase against idle, and the write path's plans.
 */
export async function benchIngest(options: IngestBenchOptions): Promise<void> {
  const url = databaseUrl();
  if (!url) throw new Error("the ingest benchmark runs on PostgreSQL: set DATABASE_URL to a full-size market (docs/benchmarks.md)");
  const backend = await openBackend({ databaseUrl: url, dataDir: "" });
  const stacks = new BenchStacks(backend);
  const children: ChildProcess[] = [];
  let phase: Phase | null = "idle";
  try {
    const { rows: vacuum } = await backend.typedQuery(`select current_setting('autovacuum') as on`);
    if (vacuum[0]?.on !== "on")
      console.log(
        "ingest benchmark: WARNING: PostgreSQL runs with autovacuum off; the versions' and prints' dead rows then pile up " +
          "for the whole run, as in no production database (docs/benchmarks.md#ingest)",
      );
    const day = await feedDay(backend);
    const plan = planFor(day, options);
    // The benchmark's day is new to the database: the feed starts from its beginning.
    await backend.typedQuery(`delete from feed_positions where feed = $1`, [OPRA_FEED]);
    const stack = await stacks.start(0);
    const keys = await stacks.accountKeys();
    const streamKeys = options.streams > 0 ? await stacks.accountKeys(Math.ceil(options.streams / STREAM_LIMITS.streamsPerAccount)) : null;
    const market = await marketTargets(backend);
    const ivUnderlying = (await backend.typedQuery(`select underlying from option_quotes where option_symbol = $1`, [market.batch[0]!]))
      .rows[0]!.underlying as string;
    // The warm endpoints, and the three screens (per request: their target is a p50, not a ratio).
    const warm = [USAGE, ...market.targets.filter((t) => t.kind === "warm" || t.path === "/v1/contracts/screen")];
    const screened = await screenerProbes(backend);

    const feedKey = `db-${randomBytes(24)
      .toString("base64url")
      .slice(0, API_KEY_LENGTH - 3)}`;
    let feedPort = 0;
    let goAt: number | null = null;
    let contracts = 0;
    const feed = child(
      ["--import", "tsx", "bench/ingest-feed.ts"],
      { BENCH_FEED_KEY: feedKey, BENCH_FEED_PLAN: JSON.stringify(planToWire(plan)) },
      options.ingestNice,
      (f) => {
        if (f.event === "feed_ready") [feedPort, contracts] = [Number(f.port), Number(f.contracts)];
        if (f.event === "feed_go") goAt = Number(f.wallMs);
      },
    );
    children.push(feed);
    await until(() => feedPort > 0, 600_000, "the feed");
    const probed = await probedUnderlying(backend);
    const scheduledAt = (feedNs: bigint) => (goAt === null ? null : goAt + elapsedAt(plan, feedNs));
    console.log(
      `ingest benchmark: ${contracts} contracts streamed for ${day}: ${options.minutes} minutes from 09:29 ET at ` +
        `~${options.tradesPerSecond} trades/s, ${options.speed}× real time until ${new Date(Number(plan.realtimeFrom / NS_PER_MS)).toISOString()}, ` +
        `then real time with a sample of every contract each minute (${options.quoteMinutes} minutes); trades seen through ${probed}'s flow` +
        (options.ingestNice > 0 ? `; feed and ingestor at nice ${options.ingestNice}` : ""),
    );

    const latency = new Map<Phase, Map<string, number[]>>();
    const latencyErrors = new Map<string, number>();
    const current = () => phase;
    // Each client its own accounts: the plan's in-flight cap counts per account.
    const sampling = sampleLatency(stack, warm, keys.slice(0, 60), current, latency, latencyErrors);
    const probe = new VisibilityProbe(stack.url, keys.slice(60, 78), probed, day, (ms) => scheduledAt(BigInt(ms) * NS_PER_MS));
    const probing = probe.run(current);
    const quoteSeen = new Map<number, number>();
    const watching = watchQuoteMinutes(stack.url, keys[78]!, market.batch[0]!, current, quoteSeen);
    const screenerSeen = new Map<string, Map<number, number>>();
    const watchingScreener = watchScreenerMinutes(stack.url, keys[79]!, screened, current, screenerSeen);
    // The IV context of the quote watcher's underlying, and the IV ranking (the market's), as they change.
    const ivChanges: number[] = [];
    const rankingChanges: number[] = [];
    const watchingIv = watchChanges(
      stack.url,
      keys[80]!,
      `/v1/iv/${encodeURIComponent(ivUnderlying)}`,
      (b) => {
        const { currentIV, ivr, ivp } = b as Record<string, unknown>;
        return [currentIV, ivr, ivp];
      },
      current,
      ivChanges,
    );
    const watchingRanking = watchChanges(stack.url, keys[81]!, "/v1/stocks/top-iv", (b) => b, current, rankingChanges);
    await new Promise((resolve) => setTimeout(resolve, options.idleSeconds * 1000));

    phase = "setup";
    const setupFrom = Date.now();
    const written: Written[] = [];
    const screenerBuilds: ScreenerBuild[] = [];
    let openInterestAt = 0;
    const startIngestor = () =>
      child(
        // The day is after today, its clock 32× real time for a while: the ingestor checks receive times against an hour past its end.
        ingestorArgs([
          "--feed",
          "databento",
          "--clock",
          new Date(Number((plan.start + BigInt(plan.minutes + 60) * MINUTE_NS) / NS_PER_MS)).toISOString(),
        ]),
        {
          DATABENTO_API_KEY: feedKey,
          DATABENTO_GATEWAY: `127.0.0.1:${feedPort}`,
          // The stream run wakes the shards after each commit, as a deployment does.
          ...(streamKeys ? { ADMIN_URL: stack.url, ADMIN_TOKEN: stacks.adminTokenValue } : {}),
        },
        options.ingestNice,
        (f) => {
          if (options.ingestLog) appendFileSync(options.ingestLog, `${JSON.stringify({ wallMs: Date.now(), phase, ...f })}\n`);
          if (f.event === "ingest_written" && f.lane === "trades" && Number(f.ms) >= 2_000)
            console.log(`ingestor (${phase} phase): slow ${JSON.stringify(f)}`);
          if (f.event === "ingest_written") {
            written.push({
              lane: String(f.lane),
              events: Number(f.events),
              ms: Number(f.ms),
              newest: BigInt(String(f.newest)),
              at: Date.now(),
            });
          } else if (f.event === "screener_refreshed" && (phase === "quotes" || phase === "drain"))
            screenerBuilds.push({ ms: Number(f.ms), fillMs: Number(f.fillMs), indexMs: Number(f.indexMs), analyzeMs: Number(f.analyzeMs) });
          else if (f.event === "ingest_open_interest") openInterestAt = Date.now();
          else if (f.event === "ingest_write_failed" || f.event === "feed_gap") console.log(`ingestor: ${JSON.stringify(f)}`);
          else if (f.event === "ingest_loop_held" || f.event === "stream_wake_failed" || f.event === "stream_wake_off")
            console.log(`ingestor (${phase} phase): ${JSON.stringify(f)}`);
        },
      );
    let ingestor = startIngestor();
    children.push(ingestor);
    await until(() => openInterestAt > 0, 3_600_000, "the day's definitions and open interest");
    const opened = () => written.some((w) => w.lane === "quotes" && w.newest >= plan.opening);
    await until(opened, 600_000, "the opening minute's quotes");
    const setupMs = Date.now() - setupFrom;
    const setup = written.filter((w) => w.lane === "contracts");
    // Opened once the day's opening quotes stand: the state channels start from them.
    const streams = streamKeys && (await StreamClients.open(stack.url, streamKeys, options.streams, backend));

    feed.stdin!.write("go\n");
    await until(() => goAt !== null, 10_000, "the feed's start");
    phase = "trades";
    if (streams) {
      // Over the trades phase: clients cut and resumed from their cursors, and once, the ingestor killed and restarted.
      const tradesMs = scheduledAt(plan.realtimeFrom)! - Date.now();
      streams.churn(options.resumers, tradesMs * 0.8);
      setTimeout(() => {
        console.log("stream benchmark: SIGKILL to the ingestor, then a new one");
        const killed = ingestor;
        killed.once("exit", () => {
          ingestor = startIngestor();
          children.push(ingestor);
        });
        killed.kill("SIGKILL");
      }, tradesMs / 2);
    }
    const end = plan.start + BigInt(options.minutes) * MINUTE_NS;
    const quotesFrom = scheduledAt(plan.realtimeFrom)!;
    await until(() => Date.now() >= quotesFrom, 24 * 3_600_000, "the real-time minutes");
    phase = "quotes";
    if (streams) {
      // The streams' figures are the trades phase's: the issue's 4,000 trades/s.
      streams.close();
      const trades = written.filter((w) => w.lane === "trades");
      await streams.report(backend, (tradeMs) => {
        const ns = BigInt(tradeMs) * NS_PER_MS;
        return trades.find((w) => w.newest >= ns)?.at ?? null;
      });
    }
    await until(() => Date.now() >= scheduledAt(end)!, 3_600_000, "the session's end");
    phase = "drain";
    const lastQuotes = () => written.some((w) => w.lane === "quotes" && w.newest >= end);
    await until(lastQuotes, 600_000, "the last minute's quotes").catch((e: Error) => console.log(e.message));
    // The edge learns of the last minute within its 15-s bound.
    await until(() => quoteSeen.has(Number(end / NS_PER_MS)), 30_000, "the last minute through the API").catch(() => undefined);
    const lastInScreener = () => screened.every((symbol) => screenerSeen.get(symbol)?.has(Number(end / NS_PER_MS)));
    await until(lastInScreener, 180_000, "the last minute in the screener").catch((e: Error) => console.log(e.message));
    phase = null;
    await Promise.all([sampling, probing, watching, watchingScreener, watchingIv, watchingRanking]);
    ingestor.kill("SIGTERM");
    await new Promise((resolve) => ingestor.once("exit", resolve));

    report({
      plan,
      options,
      setup,
      setupMs,
      written,
      goAt: goAt!,
      scheduledAt,
      latency,
      latencyErrors,
      probe,
      quoteSeen,
      screenerSeen,
      ivChanges,
      rankingChanges,
      screenerBuilds,
    });
    await explainWritePath(backend);
  } finally {
    phase = null;
    for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
    await stacks.stop();
    await backend.close();
  }
}

interface Report {
  plan: FeedPlan;
  options: IngestBenchOptions;
  setup: Written[];
  setupMs: number;
  written: Written[];
  goAt: number;
  scheduledAt: (feedNs: bigint) => number | null;
  latency: Map<Phase, Map<string, number[]>>;
  latencyErrors: Map<string, number>;
  probe: VisibilityProbe;
  quoteSeen: Map<number, number>;
  /** When each probed underlying's screener rows first showed each minute (wall ms), by underlying. */
  screenerSeen: Map<string, Map<number, number>>;
  /** When the IV context of the quote watcher's underlying and the IV ranking changed (wall ms). */
  ivChanges: number[];
  rankingChanges: number[];
  /** The follower's partition rebuilds from the real-time minutes on. */
  screenerBuilds: ScreenerBuild[];
}

/** A partition's rebuild: from its build's start to its swap (ms), and its steps (the rest is the swap's wait). */
interface ScreenerBuild extends BuildSteps {
  ms: number;
}

function report(r: Report): void {
  const { plan, written } = r;
  const setupEvents = r.setup.reduce((n, w) => n + w.events, 0);
  console.log(
    `\nsetup: ${setupEvents} definitions and statistics written, open interest switched and the opening minute's quotes ` +
      `written in ${fmt(r.setupMs)} s (the morning's catch-up, before the clock runs)`,
  );

  // Trades: the fast part's batches, their rate and how far behind the feed's clock each committed.
  const trades = written.filter((w) => w.lane === "trades" && w.newest > plan.hold);
  const fast = trades.filter((w) => w.newest < plan.realtimeFrom);
  const fastCount = fast.reduce((n, w) => n + w.events, 0);
  const fastWall = (fast.at(-1)?.at ?? r.goAt) - r.goAt;
  const behind = (ws: Written[]) => ws.map((w) => w.at - r.scheduledAt(w.newest)!);
  console.log(
    `trades at ${plan.speed}× real time: ${fastCount} in ${fmt(fastWall)} s = ${(fastCount / (fastWall / 1000)).toFixed(0)} trades/s ingested ` +
      `(offered ${(fastCount / (Number(plan.realtimeFrom - plan.hold) / 1e9 / plan.speed)).toFixed(0)}/s; target ≥ 4,000/s); ` +
      `batches ${fast.length}, write p50 ${p(
        fast.map((w) => w.ms),
        50,
      ).toFixed(0)} ms p99 ${p(
        fast.map((w) => w.ms),
        99,
      ).toFixed(0)} ms; ` +
      `newest trade of a batch committed p50 ${fmt(p(behind(fast), 50))} s p99 ${fmt(p(behind(fast), 99))} s after the gateway sent it`,
  );
  const slow = trades.filter((w) => w.newest >= plan.realtimeFrom);
  console.log(
    `trades at real time: batches ${slow.length}, write p50 ${p(
      slow.map((w) => w.ms),
      50,
    ).toFixed(
      0,
    )} ms; newest trade of a batch committed p50 ${fmt(p(behind(slow), 50))} s p99 ${fmt(p(behind(slow), 99))} s after the gateway sent it`,
  );
  for (const [name, seen] of [
    ["/v1/flow", r.probe.flow],
    ["/v1/flow/net", r.probe.net],
  ] as const) {
    for (const ph of ["trades", "quotes"] as const) {
      const ms = seen.filter((s) => s.phase === ph).map((s) => s.ms);
      const answered = r.probe.answered[name === "/v1/flow" ? "flow" : "net"].filter((a) => a.phase === ph).map((a) => a.ms);
      console.log(
        `  visible in ${name} (${ph} phase): ${ms.length} prints, p50 ${fmt(p(ms, 50))} s p99 ${fmt(p(ms, 99))} s (targets ≤ 1 s, ≤ 3 s); ` +
          `its polls answered in p50 ${fmt(p(answered, 50))} s p99 ${fmt(p(answered, 99))} s`,
      );
    }
  }

  // Quotes: each sampled minute's write, from the minute's end to its commit and to the API.
  console.log(
    "\nminute        samples   write s   committed after s   visible in /v1/options/quotes after s (target: ≤ 30 s p99)" +
      `   in the screener after s (${r.screenerSeen.size} underlyings, the last; target ≤ 60 s p99)`,
  );
  const inScreener: number[] = [];
  const minutes: number[] = [Number(plan.opening / NS_PER_MS)];
  for (let m = plan.samplesFrom; m <= plan.start + BigInt(r.options.minutes) * MINUTE_NS; m += MINUTE_NS)
    minutes.push(Number(m / NS_PER_MS));
  const after: number[] = [];
  for (const m of minutes) {
    const batches = written.filter((w) => w.lane === "quotes" && Number(w.newest / NS_PER_MS) === m);
    const due = r.scheduledAt(BigInt(m) * NS_PER_MS)!;
    const committed = batches.at(-1)?.at;
    const visible = r.quoteSeen.get(m);
    const opening = m === Number(plan.opening / NS_PER_MS);
    if (committed !== undefined && !opening) after.push(committed - due);
    const screened = [...r.screenerSeen.values()].map((seen) => seen.get(m));
    const shown = screened.every((at) => at !== undefined) ? Math.max(...(screened as number[])) - due : undefined;
    if (!opening) for (const at of screened) if (at !== undefined) inScreener.push(at - due);
    console.log(
      `${new Date(m).toISOString().slice(11, 16)}${opening ? " (open)" : ""}`.padEnd(14) +
        String(batches.reduce((n, w) => n + w.events, 0)).padStart(7) +
        fmt(batches.reduce((n, w) => n + w.ms, 0)).padStart(10) +
        (committed === undefined ? "not written" : opening ? "catch-up" : fmt(committed - due)).padStart(20) +
        (visible === undefined || opening ? "–" : fmt(visible - due)).padStart(20) +
        (shown === undefined || opening ? "–" : fmt(shown)).padStart(30),
    );
  }
  console.log(
    `real-time minutes in the screener after the minute's end: p50 ${fmt(p(inScreener, 50))} s, p99 ${fmt(p(inScreener, 99))} s ` +
      `(${inScreener.length} of ${(minutes.length - 1) * r.screenerSeen.size} underlying-minutes seen)`,
  );
  const step = (of: (b: ScreenerBuild) => number, q: number) => fmt(p(r.screenerBuilds.map(of), q));
  const swap = (b: ScreenerBuild) => b.ms - b.fillMs - b.indexMs - b.analyzeMs;
  console.log(
    `the screener follower from the real-time minutes on: ${r.screenerBuilds.length} partitions rebuilt ` +
      `(${(r.screenerBuilds.length / r.options.quoteMinutes).toFixed(1)} a minute), each p50 ${step((b) => b.ms, 50)} s, ` +
      `p99 ${step((b) => b.ms, 99)} s from its build's start to its swap; p50 of its steps: rows ${step((b) => b.fillMs, 50)} s, ` +
      `vacuum and indexes ${step((b) => b.indexMs, 50)} s, analyze ${step((b) => b.analyzeMs, 50)} s, swap ${step(swap, 50)} s`,
  );
  console.log(`real-time minutes committed after the minute's end: p50 ${fmt(p(after, 50))} s, max ${fmt(Math.max(...after))} s`);
  // The first change after each real-time minute's end (before the next minute's end) is that minute showing.
  for (const [name, changes] of [
    ["the IV context", r.ivChanges],
    ["the IV ranking", r.rankingChanges],
  ] as const) {
    const dues = minutes.slice(1).map((m) => r.scheduledAt(BigInt(m) * NS_PER_MS)!);
    const shown = dues.flatMap((due, i) => {
      const first = changes.find((at) => at >= due && at < (dues[i + 1] ?? Infinity));
      return first === undefined ? [] : [first - due];
    });
    console.log(
      `real-time minutes in ${name} after the minute's end: p50 ${fmt(p(shown, 50))} s, p99 ${fmt(p(shown, 99))} s ` +
        `(${shown.length} of ${dues.length} minutes seen changing it; target ≤ 30 s p99)`,
    );
  }

  // The API under load: each warm endpoint's p50 per phase against idle.
  const phases: Phase[] = ["idle", "trades", "quotes"];
  console.log(
    `\n${"warm endpoint".padEnd(46)}${phases.map((ph) => `p50 ${ph}`.padStart(13)).join("")}${"ratio".padStart(8)}` +
      "  (targets: warm ≤ 1.3×; the screens, per request, p50 ≤ 100 ms)",
  );
  for (const [name, idle] of r.latency.get("idle") ?? []) {
    const p50s = phases.map((ph) => p(r.latency.get(ph)?.get(name) ?? [], 50));
    const ratio = Math.max(p50s[1]!, p50s[2]!) / p50s[0]!;
    console.log(
      name.padEnd(46) +
        p50s.map((v) => `${v.toFixed(2)} ms`.padStart(13)).join("") +
        `${ratio.toFixed(2)}×`.padStart(8) +
        `  (${idle.length} idle samples)`,
    );
  }
  for (const [outcome, n] of [...r.latencyErrors, ...r.probe.errors]) console.log(`unexpected answers: ${outcome} ×${n}`);
}
