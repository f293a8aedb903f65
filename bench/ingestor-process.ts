/**
 * Node's flags for the ingestor, as `npm run ingest` gives them (package.json): young generation
 * semi-spaces of 64 MB rather than 16. A live minute decodes 1.4 M records and a burst of trades
 * tens of thousands; with small semi-spaces what is still queued at each scavenge is promoted, and
 * the old generation's collections took a quarter of the ingestor's thread (86 s → 43 s of GC in
 * a short benchmark run).
 */
const INGESTOR_NODE_FLAGS = ["--max-semi-space-size=64"];

/** `node` arguments that run the ingestor in one process (tsx as a loader, not a wrapper: SIGKILL reaches the writer itself). */
export function ingestorArgs(args: readonly string[]): string[] {
  return [...INGESTOR_NODE_FLAGS, "--import", "tsx", "ingest/cli/ingest.ts", ...args];
}
