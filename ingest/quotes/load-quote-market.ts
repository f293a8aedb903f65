import { equityQuotes, marketState, optionQuotes, underlyings } from "../../src/db/schema";
import type { TypedQuery } from "../db/database";
import { columnNames, selectRows } from "../db/rows";
import { OptionBook } from "./option-book";
import type { QuoteMarket } from "./price-quotes";

const S = columnNames(marketState);

/** Reads what `writeQuotes` starts from: every stored NBBO and IV into the book, the rate, dividend yields and spots. */
export async function loadQuoteMarket(query: TypedQuery): Promise<QuoteMarket> {
  const book = new OptionBook();
  const quotes = await selectRows(query, optionQuotes, [
    "underlying",
    "root",
    "expiration",
    "strike",
    "side",
    "settlement",
    "bid",
    "ask",
    "iv",
  ]);
  for (const r of quotes) {
    const quote = { underlying: r.underlying, settlement: r.settlement, bid: r.bid, ask: r.ask };
    const place = { root: r.root, expiration: r.expiration, strike: r.strike, side: r.side };
    book.apply(quote, place);
    book.setIv(quote, place, r.iv);
  }
  const [state] = await selectRows(query, marketState, ["riskFreeRate"], `where ${S.id} = 1`);
  const yields = await selectRows(query, underlyings, ["symbol", "dividendYield"]);
  const spots = await selectRows(query, equityQuotes, ["symbol", "price"]);
  return {
    book,
    rate: state?.riskFreeRate ?? 0,
    dividendYields: new Map(yields.map((r) => [r.symbol, r.dividendYield ?? 0])),
    spots: new Map(spots.map((r) => [r.symbol, r.price])),
  };
}
