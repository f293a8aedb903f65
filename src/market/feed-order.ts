/**
 * The advisory lock every writer of `flow_prints` takes (`pg_advisory_xact_lock`) before its first
 * insert and keeps to its commit. Writers then commit one after another in the order they drew
 * their ids, so `id` is commit order: once an id is visible, no smaller one can still appear,
 * and the stream shards follow the feed by id (src/market/flow-tail.ts) without missing a print
 * of a slower transaction. One live ingestor never waits on it; a load beside it waits its turn.
 */
export const FLOW_WRITERS_LOCK = 0x0f10_7715;
