/**
 * The limits of `/v1/stream`, in one table: the route, the hub, the shards, the API description and
 * docs/streams.md read them here.
 */
export const STREAM_LIMITS = {
  /** Streams (WebSocket or SSE) an account may hold open at once, whatever its plan. */
  streamsPerAccount: 5,
  /** Subscriptions one stream may hold. */
  subscriptionsPerStream: 10,
  /** A heartbeat at least this often on every stream; also how often keys and entitlement are checked. */
  heartbeatMs: 10_000,
  /**
   * Bytes of data messages a stream may have sent that its client has not shown it read (WebSocket:
   * not acknowledged; SSE: not yet taken from the response). Past it the client is a slow consumer:
   * it gets a `lagged` message with the cursors to resume from, and the stream is closed.
   */
  maxBufferedBytes: 4 * 1024 * 1024,
  /** Prints read from Postgres per round trip while a subscription catches up from a cursor. */
  catchUpPage: 1_000,
  /** Prints in one `flow` message at most: a larger batch goes out as several. */
  printsPerFrame: 500,
  /** Prints a shard reads per round trip while it follows the feed. */
  followPage: 5_000,
  /** A shard with subscribers reads the feed at least this often, woken by the ingestor or not. */
  followPollMs: 1_000,
  /** A market shard (`quotes`, `gex`) with subscribers reads `market_versions` this often: quotes move once a minute. */
  marketPollMs: 2_000,
  /** Contracts one `quotes` subscription may name (`symbols`). */
  quoteContracts: 1_000,
  /** Whole underlyings one `quotes` subscription may follow (`underlyings`): a full-size chain is thousands of contracts a minute. */
  quoteUnderlyings: 5,
  /** Quotes in one `quotes` message at most: a larger minute goes out as several. */
  quotesPerFrame: 500,
  /** The largest client message, bytes (a subscribe naming 1,000 contracts fits). */
  maxMessageBytes: 32 * 1024,
} as const;

/** WebSocket close codes of `/v1/stream` (4000-4999 are the application's own, RFC 6455 §7.4.2). */
export const CLOSE_CODES = {
  /** The key was revoked or is unknown. */
  invalid_api_key: 4401,
  /** The account is no longer entitled (trial ended, subscription lapsed); the reason says which. */
  not_entitled: 4403,
  /** The client read too slowly: resume from the cursors of the `lagged` message. */
  lagged: 4408,
  /** The service is restarting: reconnect and resume. */
  restarting: 1012,
} as const;
