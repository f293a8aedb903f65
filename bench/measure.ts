import autocannon from "autocannon";
import type { Target } from "./targets";

/** One Worker under test, with its own SQL endpoint `rtt` ms from it. */
export interface Stack {
  rtt: number;
  url: string;
  /** Round trips its SQL endpoint has served so far: market, control. */
  trips(): [market: number, control: number];
}

export interface Latency {
  p50: number;
  p99: number;
  /** p50 until the response's headers arrived: the server's part, before the body is received and decoded. */
  ttfb50: number;
  /** Database round trips per request, as the stack's SQL endpoint counted them: market, control. */
  trips: [market: number, control: number];
  /** Answers other than the expected status, by status. */
  errors: Record<string, number>;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function tally(counts: Record<string, number>, outcome: string, n: number): void {
  if (n > 0) counts[outcome] = (counts[outcome] ?? 0) + n;
}

/** How one target's requests are made: the i-th request's path, headers and body. */
export function requester(base: string, t: Target, keys: string[]) {
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
  /** One request, timed (sub-millisecond resolution) to its headers and to its whole body, and its status. */
  const timed = async (i: number): Promise<{ ms: number; ttfb: number; status: number }> => {
    const started = performance.now();
    const res = await fetch(base + pathFor(i), { method, body, headers: headersFor(i) });
    const ttfb = performance.now() - started;
    await res.arrayBuffer();
    return { ms: performance.now() - started, ttfb, status: res.status };
  };
  return { headersFor, pathFor, method, body, expected, timed };
}

/**
 * Latency of every target on every stack: `samples` rounds, each one request to every target on
 * every stack in turn (the stacks' order alternating by round), so a slow stretch of a noisy
 * machine falls on all endpoints and distances alike and their medians compare. Round trips are
 * counted around each request (requests are sequential, so the counts are the request's own).
 * Returns `[target][stack]`.
 */
export async function measureLatency(stacks: Stack[], targets: Target[], keys: string[], samples: number): Promise<Latency[][]> {
  const lanes = targets.map((t) =>
    stacks.map((s) => ({ stack: s, r: requester(s.url, t, keys), ms: [] as number[], ttfb: [] as number[], trips: [0, 0], errors: {} })),
  );
  for (let i = 0; i < samples; i++) {
    for (const lane of lanes) {
      for (const j of stacks.keys()) {
        const l = lane[i % 2 === 0 ? j : stacks.length - 1 - j]!;
        const before = l.stack.trips();
        const { ms, ttfb, status } = await l.r.timed(i);
        const after = l.stack.trips();
        l.ms.push(ms);
        l.ttfb.push(ttfb);
        l.trips[0]! += after[0] - before[0];
        l.trips[1]! += after[1] - before[1];
        if (status !== l.r.expected) tally(l.errors, String(status), 1);
      }
    }
  }
  return lanes.map((lane) =>
    lane.map((l) => {
      l.ms.sort((a, b) => a - b);
      l.ttfb.sort((a, b) => a - b);
      return {
        p50: percentile(l.ms, 50),
        p99: percentile(l.ms, 99),
        ttfb50: percentile(l.ttfb, 50),
        trips: [l.trips[0]! / samples, l.trips[1]! / samples] as [number, number],
        errors: l.errors,
      };
    }),
  );
}

/** Throughput of one target from autocannon; returns requests/s and the answers other than the expected one. */
export async function measureThroughput(
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

/** Resolves once `check` holds (looked at every 100 ms); past `timeoutMs` it fails naming `what`. */
export function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (check()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(timer);
        reject(new Error(`benchmark: timed out waiting for ${what}`));
      }
    }, 100);
  });
}
