import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { equityQuotes, underlyings } from "../db/schema";

/** An underlying with its stored equity quote (price and time null when none is stored). */
export function underlyingQuery(db: Database, symbol: string) {
  return db
    .select({ symbol: underlyings.symbol, name: underlyings.name, price: equityQuotes.price, asOf: equityQuotes.asOf })
    .from(underlyings)
    .leftJoin(equityQuotes, eq(equityQuotes.symbol, underlyings.symbol))
    .where(eq(underlyings.symbol, symbol));
}
