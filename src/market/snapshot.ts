import type { Database } from "../db/client";
import { marketState } from "../db/schema";

/** The loaded market snapshot: its version (moves on every load; caches are keyed by it) and time. */
export function snapshotQuery(db: Database) {
  return db.select({ version: marketState.version, asOf: marketState.asOf }).from(marketState).limit(1);
}
