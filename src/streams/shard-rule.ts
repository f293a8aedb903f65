/**
 * Which Durable Object holds a subscription. Flow is sharded by underlying: a ticker's prints go
 * to one of `FLOW_BUCKETS` shards by a hash of its name, so a commit wakes at most that many shards
 * whatever the number of subscribers or tickers; a market-wide subscription is held by one of
 * `MARKET_WIDE_REPLICAS` shards that each follow the whole feed, chosen by account, so the
 * fan-out of the busiest subscriptions is spread. Each shard reads the feed once per commit
 * (about ten a second at the open), far under an object's ~1,000 requests a second.
 */
export const FLOW_BUCKETS = 8;
export const MARKET_WIDE_REPLICAS = 2;

/** FNV-1a, 32-bit: stable across runtimes and deploys (a shard's name must never move). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export const flowBucketShard = (ticker: string) => `flow:b${fnv1a(ticker) % FLOW_BUCKETS}`;
export const marketWideShard = (accountId: number) => `flow:all${accountId % MARKET_WIDE_REPLICAS}`;

/** Every flow shard: the ones a commit wakes. */
export const FLOW_SHARDS: readonly string[] = [
  ...Array.from({ length: FLOW_BUCKETS }, (_, i) => `flow:b${i}`),
  ...Array.from({ length: MARKET_WIDE_REPLICAS }, (_, i) => `flow:all${i}`),
];

/** The shards of a flow subscription: its tickers' buckets, or a market-wide replica. */
export function flowShardsOf(tickers: readonly string[], accountId: number): string[] {
  return tickers.length === 0 ? [marketWideShard(accountId)] : [...new Set(tickers.map(flowBucketShard))].sort();
}

/** The tickers of a subscription a shard serves (all of them for a market-wide shard). */
export function tickersOnShard(shard: string, tickers: readonly string[]): string[] {
  return tickers.filter((t) => flowBucketShard(t) === shard);
}

/** The `status` channel's shards: every subscriber gets the same report, so a few replicas by account spread the calls. */
export const STATUS_REPLICAS = 2;
export const statusShard = (accountId: number) => `status${accountId % STATUS_REPLICAS}`;

/**
 * The state channels' shards (`quotes`, `gex`): a scope — an option root, or an underlying — belongs
 * to one of `MARKET_BUCKETS` shards by the same hash, so a minute of quotes moves at most that many
 * shards, each reading its scopes once whatever the number of subscribers.
 */
export const MARKET_BUCKETS = 8;
export const marketShard = (scope: string) => `market:b${fnv1a(scope) % MARKET_BUCKETS}`;
