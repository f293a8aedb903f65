import { asc, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { optionQuotes } from "../db/schema";
import { readWithSnapshot, type Derived, type MarketRead } from "./snapshot";
import { underlyingQuery } from "./underlyings";

/** An underlying's listed expirations; `exists` false for a symbol outside the universe. */
export interface ExpirationSchedule {
  exists: boolean;
  /** YYYY-MM-DD, distinct, chronological. */
  expirations: string[];
}

function expirationsQuery(db: Database, symbol: string) {
  return db
    .selectDistinct({ expiration: optionQuotes.expiration })
    .from(optionQuotes)
    .where(eq(optionQuotes.underlying, symbol))
    .orderBy(asc(optionQuotes.expiration));
}

/** The schedule as of the snapshot it was read under, in one round trip. */
export async function readExpirationSchedule(read: MarketRead, symbol: string): Promise<Derived<ExpirationSchedule>> {
  const { db } = read;
  const {
    snapshot,
    rows: [underlying, rows],
  } = await readWithSnapshot(read, [underlyingQuery(db, symbol), expirationsQuery(db, symbol)]);
  return { snapshot, value: { exists: underlying.length > 0, expirations: rows.map((r) => r.expiration) } };
}
