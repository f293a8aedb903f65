import { MARKET_IV } from "../../src/market/scopes";
import type { IngestDatabase } from "../db/database";
import { isPending, readPositions, writeAtPositions } from "../db/positions";
import { bumpScopes, contractScopes } from "../db/versions";
import type { QuoteEvent } from "../events";
import { moveSession, sessionOf } from "../session/move-session";
import { applyGroup, quoteGroups, writeSpots } from "./apply-quotes";
import { priceSamples, type ImpliedSpot, type PricedGroup, type QuoteMarket } from "./price-quotes";

/**
 * Writes a batch of minute samples (cbbo-1m: only the contracts that changed) and moves the feed's
 * position. Each sample instant is applied in order: its quotes enter the book, each touched
 * underlying's spot is implied from its whole chain (else its last spot is kept), then every
 * sample's IV and Greeks are solved at that spot and instant. Samples at or before the stored
 * position are skipped.
 *
 * The samples are written a few underlyings at a time (never across a screener partition's bound),
 * each group in its own transaction with its scopes' new version: an underlying's chain, quotes,
 * GEX and screener partition move to the new minute at once, and the trades lane, whose updates
 * of last price and volume wait for the quote rows a transaction holds, waits for one group (under
 * a second) rather than the whole market's minute. A group is
 * priced while the database applies the one before it, in slices that let the trades lane's I/O
 * through. The last group also writes the spots to `equity_quotes`, moves the session and the
 * feed's position: a crash before it replays the minute, and applying a sample again changes
 * nothing.
 */
export async function writeQuotes(
  db: IngestDatabase,
  feed: string,
  quotes: readonly QuoteEvent[],
  market: QuoteMarket,
  through?: bigint,
): Promise<{ written: number; skipped: number }> {
  const stored = await readPositions(db.typedQuery, feed);
  const pending = quotes.filter((e) => isPending(stored, e.position));
  const groups = await quoteGroups(db.typedQuery, pending);
  const spots = new Map<string, ImpliedSpot>();
  const asOf = pending.at(-1)?.asOf ?? new Date(0);
  const session = sessionOf(asOf);
  const scopesOf = ({ samples, ivs }: PricedGroup) => {
    const scopes = contractScopes(samples.map(({ event }) => ({ underlying: event.underlying, root: event.contract.root })));
    return ivs.size > 0 ? scopes.add(MARKET_IV) : scopes;
  };
  const none: PricedGroup = { samples: [], ivs: new Map() };
  let next = groups.length > 0 ? priceSamples(groups[0]!, market, spots) : Promise.resolve(none);
  for (let i = 0; i < groups.length - 1; i++) {
    const group = await next;
    next = priceSamples(groups[i + 1]!, market, spots);
    await db.typedTransaction(async (query, copy) => {
      await applyGroup(query, copy, group, session);
      await bumpScopes(query, { scopes: scopesOf(group), asOf });
    });
  }
  const last = await next;
  return writeAtPositions(
    db,
    feed,
    quotes,
    async (query, _pending, copy) => {
      await applyGroup(query, copy, last, session);
      await writeSpots(query, spots, session);
      await moveSession(query, asOf, session);
      return { scopes: scopesOf(last), asOf };
    },
    through,
  );
}
