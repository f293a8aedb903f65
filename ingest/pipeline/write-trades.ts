import { classifyTrades, type ClassifyContext } from "../flow/classify-trades";
import { flowContext, writeFlowPrints } from "../flow/store-prints";
import type { TradeEvent } from "../events";
import type { IngestDatabase } from "./database";
import { advancePositions, batchPositions, isPending, readPositions } from "./positions";

/**
 * Writes a batch of trades as classified flow prints and moves the feed's positions to the
 * batch's newest receive times, in one transaction: after a crash either both are stored or
 * neither. Trades at or before the stored position (a replay after a restart) are skipped, and a
 * print written twice is updated in place (its key), so nothing is counted twice. The batch must
 * hold every trade of each receive time it touches.
 */
export async function writeTrades(
  db: IngestDatabase,
  feed: string,
  trades: readonly TradeEvent[],
  pricing: Pick<ClassifyContext, "rate" | "dividendYield">,
): Promise<{ written: number; skipped: number }> {
  return db.typedTransaction(async (query) => {
    const positions = await readPositions(query, feed);
    const pending = trades.filter((t) => isPending(positions, t.position));
    if (pending.length > 0) await writeFlowPrints(query, classifyTrades(pending, await flowContext(query, pending, pricing)));
    await advancePositions(query, feed, batchPositions(trades));
    return { written: pending.length, skipped: trades.length - pending.length };
  });
}
