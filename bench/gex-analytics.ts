/**
 * Micro-benchmark of the GEX analytics on a synthetic index-like chain, for `npm run bench` and
 * by hand: `npx tsx -e 'import("./bench/gex-analytics.ts").then((m) => console.log(m.benchGex()))'`.
 * Run it in Node: inside workerd, clocks only advance across I/O.
 */
import { addDays } from "../src/domain/calendar";
import { gammaBook, type GexContract, type GexMarket } from "../src/analytics/gamma-book";
import { gammaFlip } from "../src/analytics/gamma-flip";
import { gexProfile } from "../src/analytics/gex";
import { gexHeatmap } from "../src/analytics/gex-heatmap";

/** Deterministic 32-bit PRNG (mulberry32). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A chain shaped like SPX: dailies for two months then monthlies out to two years, strikes
 * spaced evenly over a range that widens with √T, a put skew, open interest peaking near the
 * money and on round strikes. `count` contracts (rounded down to a whole number of strikes per
 * expiration, both sides).
 */
export function syntheticGexChain(count = 20_000, spot = 4500, seed = 7): GexContract[] {
  const random = prng(seed);
  const today = "2026-01-05";
  const days: number[] = [];
  for (let d = 0; d <= 60; d++) if ((d + 1) % 7 < 5) days.push(d);
  for (let m = 3; m <= 24; m++) days.push(Math.round(m * 30.4));
  const perExpiry = Math.max(1, Math.floor(count / (2 * days.length)));
  const out: GexContract[] = [];
  for (const day of days) {
    const T = Math.max(day + 0.25, 0.02) / 365;
    const atm = 0.14 + 0.04 * Math.exp(-T * 8);
    const width = Math.max(0.05, 4 * atm * Math.sqrt(T));
    for (let i = 0; i < perExpiry; i++) {
      const strike = Math.round((spot * (1 - width + (2 * width * i) / Math.max(perExpiry - 1, 1))) / 5) * 5;
      const m = Math.log(strike / spot) / (atm * Math.sqrt(T));
      const iv = Math.max(0.05, atm * (1 - 0.12 * m + 0.02 * m * m));
      const round = strike % 100 === 0 ? 4 : strike % 50 === 0 ? 2 : 1;
      for (const side of ["call", "put"] as const) {
        const skew = side === "put" ? Math.exp(-0.5 * (m + 1) ** 2) : Math.exp(-0.5 * (m - 0.5) ** 2);
        const openInterest = Math.round(round * (50 + 5000 * skew) * (0.3 + random()));
        out.push({ expiration: addDays(today, day), strike, side, openInterest, multiplier: 100, iv, T });
      }
    }
  }
  return out;
}

export interface GexBenchResult {
  contracts: number;
  /** Median milliseconds over the runs of: building the book, the flip alone, the profile (strikes, walls, flip), the heatmap. */
  bookMs: number;
  flipMs: number;
  profileMs: number;
  heatmapMs: number;
  runs: number;
  flip: number | null;
}

/** Process CPU time in milliseconds where Node's `process.cpuUsage` exists. */
function cpuClock(): (() => number) | null {
  const p = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process;
  if (typeof p?.cpuUsage !== "function") return null;
  const usage = p.cpuUsage.bind(p);
  return () => {
    const u = usage();
    return (u.user + u.system) / 1000;
  };
}

/** Median timings on a synthetic chain; the clock defaults to process CPU time (Node), else `performance.now()`. */
export function benchGex(options: { contracts?: number; runs?: number; now?: () => number; market?: GexMarket } = {}): GexBenchResult {
  const now = options.now ?? cpuClock() ?? (() => performance.now());
  const runs = options.runs ?? 25;
  const market = options.market ?? { r: 0.04, q: 0.013 };
  const spot = 4500;
  const chain = syntheticGexChain(options.contracts ?? 20_000, spot);
  const median = (xs: number[]) => xs.sort((p, q) => p - q)[Math.floor(xs.length / 2)]!;
  const timings = { book: [] as number[], flip: [] as number[], profile: [] as number[], heatmap: [] as number[] };
  let flip: number | null = null;
  for (let i = 0; i < runs + 3; i++) {
    const t0 = now();
    const book = gammaBook(chain, market);
    const t1 = now();
    flip = gammaFlip(book, spot);
    const t2 = now();
    gexProfile(book, spot);
    const t3 = now();
    gexHeatmap(book, spot);
    const t4 = now();
    // The first runs warm the JIT up.
    if (i < 3) continue;
    timings.book.push(t1 - t0);
    timings.flip.push(t2 - t1);
    timings.profile.push(t3 - t2);
    timings.heatmap.push(t4 - t3);
  }
  return {
    contracts: chain.length,
    bookMs: median(timings.book),
    flipMs: median(timings.flip),
    profileMs: median(timings.profile),
    heatmapMs: median(timings.heatmap),
    runs,
    flip,
  };
}
