import type { TypedQuery } from "../db/database";
import { OptionBook } from "./option-book";
import type { QuoteMarket } from "./price-quotes";

/** Reads what `writeQuotes` starts from: every stored NBBO and IV into the book, the rate, dividend yields and spots. */
export async function loadQuoteMarket(query: TypedQuery): Promise<QuoteMarket> {
  const book = new OptionBook();
  const quotes = await query(
    `select underlying, root, expiration::text as expiration, strike, side, settlement, bid, ask, iv from option_quotes`,
  );
  for (const r of quotes.rows) {
    const quote = {
      underlying: r.underlying as string,
      settlement: r.settlement as "am" | "pm",
      bid: r.bid === null ? null : Number(r.bid),
      ask: r.ask === null ? null : Number(r.ask),
    };
    const place = { root: r.root as string, expiration: r.expiration as string, strike: Number(r.strike), side: r.side as "call" | "put" };
    book.apply(quote, place);
    book.setIv(quote, place, r.iv === null ? null : Number(r.iv));
  }
  const state = await query(`select risk_free_rate from market_state where id = 1`);
  const yields = await query(`select symbol, dividend_yield from underlyings`);
  const spots = await query(`select symbol, price from equity_quotes`);
  return {
    book,
    rate: state.rows[0] ? Number(state.rows[0].risk_free_rate) : 0,
    dividendYields: new Map(yields.rows.map((r) => [r.symbol as string, Number(r.dividend_yield ?? 0)])),
    spots: new Map(spots.rows.map((r) => [r.symbol as string, Number(r.price)])),
  };
}
