import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ingestor } from "../../ingest/pipeline/ingestor";
import { writeTrades } from "../../ingest/flow/write-trades";
import { parseCboeTrades, tradeEvents } from "../../ingest/sources/cboe/trades";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";

/** Cboe DataShop's VIX trades of 2016-06-01 (excerpt, test/fixtures/cboe): 261 rows, 2 rejected by the parser. */
const file = parseCboeTrades(readFileSync("test/fixtures/cboe/VIX_2016-06-01_trades_excerpt.csv", "utf8"));
const RATE = 0.005;

let loaded: SqlBackend;
let streamed: SqlBackend;
beforeAll(async () => {
  [loaded, streamed] = await Promise.all([ingestDatabase(), ingestDatabase()]);
  for (const db of [loaded, streamed]) {
    await db.typedQuery(
      `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2016-06-01T20:15:00Z', '2016-06-01', $1, 'test')`,
      [RATE],
    );
    // Open interest, IV and delta of one contract, as a quote table of the day leaves them.
    await db.typedQuery(
      `insert into option_quotes (option_symbol, underlying, root, expiration, strike, side, settlement, open_interest, iv, delta, as_of)
       values ('VIX160720C00027000', 'VIX', 'VIX', '2016-07-20', 27, 'call', 'am', 20000, 0.9012, 0.2101, '2016-06-01T20:15:00Z')`,
    );
  }
}, 60_000);
afterAll(async () => Promise.all([loaded.close(), streamed.close()]));

const prints = async (db: SqlBackend) =>
  (
    await db.typedQuery(
      `select option_symbol, executed_at, sequence_number, price, size, volume, side, sentiment, execution_type, print_class, premium,
              underlying_price, open_interest, open_interest_source, iv, delta, iv_source
         from flow_prints order by executed_at, sequence_number, option_symbol`,
    )
  ).rows;

describe("the Cboe DataShop trade file as a stream", () => {
  it("gives through the ingestor, batch by batch, the prints `npm run load` writes in one transaction", async () => {
    const events = tradeEvents(file);
    const load = await writeTrades(loaded, "cboe-datashop:vix", events, { rate: RATE, dividendYield: 0 });
    expect(load.written).toBe(259);

    const ingestor = await Ingestor.start(streamed, { feed: "cboe-datashop:vix", log: () => undefined });
    for (const event of events) await ingestor.accept(event);
    await ingestor.drain({ endOfFeed: true });

    const expected = await prints(loaded);
    expect(expected).toHaveLength(259);
    expect(await prints(streamed)).toEqual(expected);
    const quotes = `select option_symbol, last, last_trade_at, volume from option_quotes order by 1`;
    expect((await streamed.typedQuery(quotes)).rows).toEqual((await loaded.typedQuery(quotes)).rows);
  });
});
