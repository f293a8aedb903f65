import { marketSession } from "../db/market-session";
import { writeBaselines } from "./baselines";
import { rebuildAllPartitions } from "./partitions";
import type { SqlBackend } from "../db/sql-backend";

/**
 * Rebuilds the screener from the loaded market (after the seed and every loader, or as a repair):
 * the session's 30-session baselines from the history, then every partition, cut afresh to the
 * market's size and swapped in at once (`ingest/screener/partitions.ts`). Returns the rows written.
 */
export async function rebuildScreener(backend: SqlBackend): Promise<number> {
  const session = await marketSession(backend.typedQuery);
  if (!session) return 0;
  await writeBaselines(backend, session);
  return rebuildAllPartitions(backend);
}
