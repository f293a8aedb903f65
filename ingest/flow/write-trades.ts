import { classifyTrades, type ClassifyContext, type FlowPrint } from "./classify-trades";
import { flowContext, writeFlowPrints } from "./store-prints";
import type { TradeEvent } from "../events";
import { optionQuotes } from "../../src/db/schema";
import { flowPartitionsSql } from "../../src/market/flow-partitions";
import { copyInsert } from "../db/bulk-insert";
import type { CopyRows, IngestDatabase, TypedQuery } from "../db/database";
import { sqlNames } from "../db/rows";
import { writeAtPositions } from "../db/positions";
import { tradedScopes } from "../db/versions";

/**
 * Writes a batch of trades as classified flow prints, carries each contract's newest print into its
 * quote (last price and time, session volume) and moves the feed's positions to the batch's newest
 * receive times, in one transaction: after a crash either all are stored or none. Trades at or
 * before the stored position (a replay after a restart) are skipped, and a print written twice is
 * updated in place (its key), so nothing is counted twice. The batch must hold every trade of each
 * receive time it touches. Returns the prints written.
 */
export async function writeTrades<T extends TradeEvent>(
  db: IngestDatabase,
  feed: string,
  trades: readonly T[],
  pricing: Pick<ClassifyContext, "rate" | "dividendYield" | "dividendYields">,
  through?: bigint,
): Promise<{ written: number; skipped: number; prints: FlowPrint<T>[] }> {
  let prints: FlowPrint<T>[] = [];
  await ensurePartitions(db, trades);
  const result = await writeAtPositions(
    db,
    feed,
    trades,
    async (query, pending, copy) => {
      prints = classifyTrades(pending, await flowContext(query, pending, pricing));
      await writeFlowPrints(query, copy, prints);
      const quoted = await updateLastTrades(query, copy, prints);
      const newest = Math.max(...pending.map((t) => t.executedAt.getTime()));
      return {
        scopes: tradedScopes(quoted.map(({ trade }) => ({ underlying: trade.underlying, root: trade.contract.root }))),
        asOf: new Date(newest),
      };
    },
    through,
  );
  return { ...result, prints };
}

const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);

/** The sessions whose partitions each database is known to hold. */
const partitioned = new WeakMap<IngestDatabase, Set<string>>();

/** Makes the partitions of the trades' sessions, once per session and database, before (not in) a batch's transaction. */
async function ensurePartitions(db: IngestDatabase, trades: readonly TradeEvent[]): Promise<void> {
  const known = partitioned.get(db) ?? new Set<string>();
  partitioned.set(db, known);
  const sessions = [...new Set(trades.map((t) => t.sessionDate))].filter((s) => !known.has(s));
  if (sessions.length === 0) return;
  await db.typedQuery(flowPartitionsSql(sessions));
  for (const s of sessions) known.add(s);
}

/**
 * Each contract's newest print that counts (not canceled) becomes its quote's last price and
 * time, with the session volume up to it (those prints are returned); a quote that already holds a later trade keeps it. A
 * contract not yet in `option_quotes` (its definition is written by another lane) enters with
 * them, so the order in which the lanes commit does not change the outcome.
 */
async function updateLastTrades(query: TypedQuery, copy: CopyRows, prints: readonly FlowPrint[]): Promise<FlowPrint[]> {
  const newest = new Map<string, FlowPrint>();
  for (const p of prints) {
    if (p.printClass === "canceled") continue;
    const seen = newest.get(p.trade.optionSymbol);
    const order =
      seen && (p.trade.executedAt.getTime() - seen.trade.executedAt.getTime() || p.trade.sequenceNumber - seen.trade.sequenceNumber);
    if (!seen || order! > 0) newest.set(p.trade.optionSymbol, p);
  }
  await copyInsert(
    query,
    copy,
    optionQuotes,
    [...newest.values()].map(({ trade, volume }) => ({
      optionSymbol: trade.optionSymbol,
      underlying: trade.underlying,
      root: trade.contract.root,
      expiration: trade.contract.expiration,
      strike: trade.contract.strike,
      side: trade.contract.side,
      settlement: trade.settlement,
      multiplier: 100,
      last: trade.price,
      lastTradeAt: trade.executedAt.toISOString(),
      volume,
    })),
    () => `on conflict (${Q.optionSymbol}) do update set ${[Q.last, Q.lastTradeAt, Q.volume].map((c) => `${c} = excluded.${c}`).join(", ")}
           where ${OPTION_QUOTES}.${Q.lastTradeAt} is null or ${OPTION_QUOTES}.${Q.lastTradeAt} <= excluded.${Q.lastTradeAt}`,
    // In symbol order, as every writer of option_quotes: two lanes' batches then never deadlock.
    Q.optionSymbol,
  );
  return [...newest.values()];
}
