import type { Database } from "../db/client";

/** What the edge cache needs of a request: the cache namespace, work after the response, the database on a miss. */
export interface EdgeScope {
  /** The market cache: KV for every edge, with this isolate's memory in front of it. */
  cache: KVNamespace;
  /** Keeps work running after the response (the request's `waitUntil`). */
  waitUntil(work: Promise<unknown>): void;
  /** The market database, read only on a miss. */
  market: Database;
}
