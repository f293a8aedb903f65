import type { AdminApi } from "./admin-api";
import type { IngestLog } from "../log";

/**
 * Wakes the stream shards after each commit of prints, so a print reaches subscribers in one
 * read rather than at the shards' next poll (`followPollMs`). At most one call in flight: commits
 * during it are covered by one more call after it. A failure only costs latency (the shards poll
 * on their own), so it is logged, once per 100, and never retried.
 */
export function streamWaker(admin: AdminApi, log: IngestLog): () => void {
  let inFlight = false;
  let again = false;
  let failures = 0;
  const wake = (): void => {
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    again = false;
    admin
      .wakeStreams()
      .then((result) => {
        if (!result.ok) throw new Error(`status ${result.status}`);
      })
      .catch((error: unknown) => {
        if (failures++ % 100 === 0)
          log({ event: "stream_wake_failed", failures, error: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => {
        inFlight = false;
        if (again) wake();
      });
  };
  return wake;
}
