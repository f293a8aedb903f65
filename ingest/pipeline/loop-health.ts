import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import type { IngestLog } from "../log";

/** A window whose worst event-loop delay reaches this is logged. */
const HELD_MS = 250;

/**
 * Watches the ingestor's one thread: every `everyMs`, when the event loop was held for `HELD_MS`
 * or more at a time, logs `ingest_loop_held` with the worst delay, the 99th percentile and the
 * longest garbage-collection pause of the window. A held loop holds every lane (trades wait for a
 * minute's decoding or a collection), so this is where a trade's lateness shows first. Returns
 * the function that stops watching.
 */
export function watchLoopHealth(log: IngestLog, everyMs = 10_000): () => void {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  let longestGc = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longestGc = Math.max(longestGc, entry.duration);
  });
  gc.observe({ entryTypes: ["gc"] });
  const ms = (ns: number) => Math.round(ns / 1e6);
  const timer = setInterval(() => {
    if (ms(delay.max) >= HELD_MS) {
      log({ event: "ingest_loop_held", maxMs: ms(delay.max), p99Ms: ms(delay.percentile(99)), longestGcMs: Math.round(longestGc) });
    }
    delay.reset();
    longestGc = 0;
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    delay.disable();
    gc.disconnect();
  };
}
