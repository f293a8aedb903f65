import { randomBytes } from "node:crypto";
import { LiveRefusedError } from "../../ingest/sources/opra/live/live-client";
import type { AdminApi } from "../../ingest/admin-api/admin-api";
import { streamWaker } from "../../ingest/admin-api/stream-waker";
import { runIngestor } from "../../ingest/run-ingestor";
import { OPRA_FEED } from "../../ingest/sources/opra/live/protocol";
import { receiveTime } from "../../ingest/sources/opra/feed-files";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { loadStreamMarket, rawSymbols, sessionRecords } from "../generator/session-stream";
import { LocalGateway } from "./local-gateway";

/** The demo market's pace: trades per second across the whole market (about 18,000 an hour). */
const DEMO_TRADES_PER_SECOND = 5;

/**
 * The moving market of `npm run dev`: the seeded market's session streamed live by a local
 * gateway (the vendor's protocol) and written by the real ingestor in this process (PGlite has
 * one owner), assembled as `npm run ingest` assembles it: the screener follows the minute too. The session is laid on the wall clock whatever the hour — a minute sample at each
 * wall-clock minute, trades as they come — and starts after the newest stored quote and print, so
 * when the seed's session is later than now (a seed made before the close) the feed runs that far ahead
 * (docs/decisions.md).
 */
export async function startDevMarket(
  backend: SqlBackend,
  log: (line: string) => void,
  admin: AdminApi,
): Promise<{ stop: () => Promise<void> }> {
  const market = await loadStreamMarket(backend.typedQuery);
  // After the newest stored quote and print: a seed's trades run on to the close, past its quote snapshot.
  const { rows } = await backend.typedQuery(
    `select extract(epoch from greatest((select max(as_of) from option_quotes) + interval '1 minute',
                                        (select max(executed_at) from flow_prints) + interval '1 second')) * 1000 as newest`,
  );
  const offsetMs = Math.max(0, Number(rows[0]?.newest ?? 0) - Date.now());
  const nowNs = () => BigInt(Date.now() + offsetMs) * 1_000_000n;
  const session = { start: nowNs(), tradesPerSecond: DEMO_TRADES_PER_SECOND };
  // A key of this run only, handed over in memory.
  const apiKey = `db-${randomBytes(24).toString("base64url").slice(0, 29)}`;
  const gateway = await LocalGateway.start({
    apiKey,
    records: async function* (from) {
      for (const record of sessionRecords(market, session)) if (from === null || receiveTime(record) >= from) yield record;
    },
    rawSymbol: rawSymbols(market),
    now: nowNs,
  });
  const stop = new AbortController();
  // The same assembly as `npm run ingest`: the screener and the session roll follow the minute too.
  const following = runIngestor(
    backend,
    {
      kind: "live",
      host: "127.0.0.1",
      port: gateway.port,
      apiKey,
      feed: OPRA_FEED,
      heartbeatIntervalS: 5,
      // The feed's clock is the wall clock's but for the offset: a record is checked against it.
      now: () => new Date(Date.now() + offsetMs),
    },
    {
      signal: stop.signal,
      // Each commit of prints wakes the stream shards, as `npm run ingest` does with ADMIN_URL set.
      onTradesCommitted: streamWaker(admin, (fields) => log(`market feed: ${JSON.stringify(fields)}`)),
      log: (fields) => {
        if (String(fields.event).startsWith("feed_") && fields.event !== "feed_notice") log(`market feed: ${JSON.stringify(fields)}`);
        if (fields.event === "ingest_write_failed") log(`market feed: a write failed, retrying (${String(fields.error)})`);
        if (fields.event === "screener_refresh_failed") log(`market feed: a screener rebuild failed, retrying (${String(fields.error)})`);
      },
    },
  ).catch((error: unknown) => {
    if (!stop.signal.aborted) log(`market feed stopped: ${error instanceof LiveRefusedError ? error.message : String(error)}`);
  });
  log(
    `market feed: ${market.contracts.length} contracts streamed through a local Databento gateway (port ${gateway.port}), ` +
      `a quote sample each minute, ~${DEMO_TRADES_PER_SECOND} trades/s${offsetMs > 0 ? `, ${Math.round(offsetMs / 60_000)} min ahead of the wall clock (after the seeded snapshot)` : ""}`,
  );
  return {
    stop: async () => {
      stop.abort();
      await following;
      await gateway.close();
    },
  };
}
