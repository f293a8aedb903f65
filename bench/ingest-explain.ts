import { parseOcc } from "../src/domain/occ";
import type { QuoteEvent, TradeEvent } from "../ingest/events";
import type { IngestDatabase, TypedQuery } from "../ingest/db/database";
import { writeTrades } from "../ingest/flow/write-trades";
import { loadQuoteMarket } from "../ingest/quotes/load-quote-market";
import { writeQuotes } from "../ingest/quotes/write-quotes";
import type { SqlBackend } from "../ingest/db/sql-backend";

class RolledBack extends Error {}

/**
 * The ingest write path's plans: a batch of trades and a minute of quotes written by the real
 * writers in a transaction that is rolled back, each data statement run under
 * `EXPLAIN (ANALYZE, BUFFERS)` (so it runs once, for real, and returns its plan instead of rows).
 */
export async function explainWritePath(backend: SqlBackend, tradeCount = 2_000, quoteCount = 100_000): Promise<void> {
  const { rows } = await backend.typedQuery(
    `select option_symbol, underlying, settlement, bid, ask, as_of from option_quotes
      where bid is not null and ask > 0.05 and as_of is not null order by underlying, option_symbol limit $1`,
    [quoteCount],
  );
  const newest = Math.max(...rows.map((r) => Date.parse(String(r.as_of))));
  const at = new Date(Math.ceil((newest + 1) / 60_000) * 60_000);
  const contractOf = (r: Record<string, unknown>) => ({
    optionSymbol: r.option_symbol as string,
    contract: parseOcc(r.option_symbol as string)!,
    underlying: r.underlying as string,
    isIndex: false,
    settlement: r.settlement as "am" | "pm",
  });
  const tsRecv = BigInt(at.getTime()) * 1_000_000n;
  const quotes: QuoteEvent[] = rows.map((r) => ({
    kind: "quote",
    ...contractOf(r),
    position: { schema: "cbbo-1m", tsRecv },
    asOf: at,
    bid: Number(r.bid),
    ask: Number(r.ask) + 0.01,
    bidSize: 10,
    askSize: 10,
    last: null,
  }));
  // Trades on contracts spread over the market; quotes, as a minute's groups, on whole underlyings.
  const trades: TradeEvent[] = rows
    .filter((_, i) => i % Math.ceil(rows.length / tradeCount) === 0)
    .map((r, i) => ({
      kind: "trade",
      ...contractOf(r),
      position: { schema: "tcbbo", tsRecv: tsRecv - 1_000_000n },
      executedAt: new Date(at.getTime() - 2),
      sessionDate: at.toISOString().slice(0, 10),
      sequenceNumber: i,
      exchangeId: 30,
      price: Number(r.ask),
      size: 5,
      bid: Number(r.bid),
      ask: Number(r.ask),
      underlyingPrice: null,
      printClass: "regular",
    }));
  const market = await loadQuoteMarket(backend.typedQuery);
  const explain = async (title: string, write: (db: IngestDatabase) => Promise<unknown>) => {
    const plans: string[] = [];
    const db: IngestDatabase = {
      typedQuery: backend.typedQuery,
      typedTransaction: (body) =>
        backend.typedTransaction(async (query, copy) => {
          const explaining: TypedQuery = async (text, params) => {
            if (!/^\s*(insert|update|delete|with)/i.test(text)) return query(text, params);
            const plan = await query(`explain (analyze, buffers, costs off) ${text}`, params);
            plans.push(
              `${text.trim().split("\n")[0]!.slice(0, 110)}…\n${plan.rows.map((r) => `    ${String(r["QUERY PLAN"])}`).join("\n")}`,
            );
            return { rows: [] };
          };
          await body(explaining, copy);
          throw new RolledBack();
        }),
    };
    await write(db).catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) — ${title}, rolled back:\n${plans.join("\n")}`);
  };
  await explain(`${trades.length} trades (one batch)`, (db) =>
    writeTrades(db, "bench-explain", trades, { rate: market.rate, dividendYield: 0, dividendYields: market.dividendYields }),
  );
  await explain(`a minute of ${quotes.length} quotes`, (db) => writeQuotes(db, "bench-explain", quotes, market));
}
