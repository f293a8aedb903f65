import { setImmediate } from "node:timers/promises";
import { impliedVolatility } from "../../src/analytics/implied-volatility";
import { quoteAnalytics } from "../../src/analytics/quote-analytics";
import { addDays, newYorkInstant, sessionOnOrBefore, todayInNewYork } from "../../src/domain/calendar";
import { expiryInstant, yearsUntil, type Settlement } from "../../src/domain/market-clock";
import { optionQuotes } from "../../src/db/schema";
import type { QuoteEvent } from "../events";
import { bulkInsert, copyColumns, type InsertRow } from "../db/bulk-insert";
import type { CopyColumn, CopyRows, CopyValue, IngestDatabase, TypedQuery } from "../db/database";
import { isPending, readPositions, writeAtPositions } from "../db/positions";
import { bumpScopes, contractScopes } from "../db/versions";
import { MARKET_IV } from "../../src/market/scopes";
import { markSql } from "./mark";
import { OptionBook } from "./option-book";
import { partitionCuts } from "../screener/partitions";

/** What pricing a minute's quotes needs beyond the quotes: kept by the quote writer between minutes. */
export interface QuoteMarket {
  book: OptionBook;
  /** The market's risk-free rate (`market_state`), decimal. */
  rate: number;
  /** Continuous dividend yield by underlying (`underlyings`), decimal; 0 when absent. */
  dividendYields: Map<string, number>;
  /** The newest spot of each underlying: implied by its chain, else the stored equity quote. */
  spots: Map<string, number>;
}

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

/** The mid IV is solved from: both sides present and not crossed, a zero bid allowed (a far out-of-the-money offer). */
function ivMid(bid: number | null, ask: number | null): number | null {
  return bid !== null && ask !== null && ask > 0 && ask >= bid ? (bid + ask) / 2 : null;
}

/** What a sample sets of a stored quote, in the stage's column order; the contract's terms never change. */
const SAMPLE_KEYS = [
  "optionSymbol",
  "bid",
  "ask",
  "last",
  "iv",
  "delta",
  "gamma",
  "theta",
  "vega",
  "rho",
  "underlyingPrice",
  "asOf",
] as const;
const SAMPLE_COLUMNS = copyColumns(optionQuotes, SAMPLE_KEYS);

/** The stage's other columns: the New York day of the sample's time, from its midnight to the next. */
const DAY_COLUMNS: CopyColumn[] = [
  { name: "day_from", type: "timestamptz" },
  { name: "day_to", type: "timestamptz" },
];

/** A sample priced: its event, its IV (decimal) and its stage row (the values of SAMPLE_KEYS then DAY_COLUMNS, times in epoch ms). */
interface PricedSample {
  event: QuoteEvent;
  iv: number | null;
  values: CopyValue[];
}

/** A group of whole underlyings priced: its samples and each underlying's 30-day IV after them (decimal). */
interface PricedGroup {
  samples: PricedSample[];
  ivs: Map<string, number>;
}

/** Instants a group's samples share, each computed once (time-zone arithmetic per sample cost seconds a minute). */
class SharedInstants {
  private readonly expiries = new Map<string, number>();
  private readonly days = new Map<number, [number, number]>();

  /** A contract's expiry instant (epoch ms): a group's contracts share a few dozen expirations. */
  expiry(expiration: string, settlement: Settlement): number {
    const key = `${expiration}${settlement}`;
    let at = this.expiries.get(key);
    if (at === undefined) this.expiries.set(key, (at = expiryInstant(expiration, settlement).getTime()));
    return at;
  }

  /** The New York day holding `at`: its midnight and the next (epoch ms), for the sample's session volume rule. */
  day(at: Date): [number, number] {
    let day = this.days.get(at.getTime());
    if (day === undefined) {
      const date = todayInNewYork(at);
      this.days.set(at.getTime(), (day = [newYorkInstant(date, 0).getTime(), newYorkInstant(addDays(date, 1), 0).getTime()]));
    }
    return day;
  }
}

/** A sample's NBBO with the IV solved from its mid and the Greeks at the underlying's spot and the sample's time. */
function priceSample(event: QuoteEvent, spot: number | null, r: number, q: number, instants: SharedInstants): PricedSample {
  const { contract } = event;
  const T = yearsUntil(instants.expiry(contract.expiration, event.settlement), event.asOf);
  const mid = ivMid(event.bid, event.ask);
  const terms = { S: spot ?? 0, K: contract.strike, T, r, q, side: contract.side };
  const iv = event.stated?.iv ?? (spot !== null && mid !== null && T > 0 ? impliedVolatility({ price: mid, ...terms }) : null);
  const g = quoteAnalytics(iv, terms);
  const values = [
    event.optionSymbol,
    event.bid,
    event.ask,
    event.last,
    g.iv,
    g.delta,
    g.gamma,
    g.theta,
    g.vega,
    g.rho,
    spot,
    event.asOf.getTime(),
    ...instants.day(event.asOf),
  ];
  return { event, iv: g.iv, values };
}

/** The whole `option_quotes` row of a priced sample, for a contract not stored yet (volume starts at 0). */
function newQuoteRow({ event, values }: PricedSample): InsertRow<typeof optionQuotes> {
  const sample = Object.fromEntries(SAMPLE_KEYS.map((key, i) => [key, values[i]]));
  const { contract } = event;
  return {
    ...sample,
    underlying: event.underlying,
    root: contract.root,
    expiration: contract.expiration,
    strike: contract.strike,
    side: contract.side,
    settlement: event.settlement,
    multiplier: 100,
    volume: 0,
    asOf: event.asOf.toISOString(),
  } as InsertRow<typeof optionQuotes>;
}

/** Columns a sample never changes (the contract's terms), and the volume, which the trades keep. */
const KEPT_COLUMNS = new Set(["option_symbol", "underlying", "root", "expiration", "strike", "side", "settlement", "multiplier", "volume"]);

/**
 * A sample's assignments to a stored quote (`stored`) from its row (`sample`): the session's last
 * price and volume stay unless the stored ones are of an earlier session (the volume then starts
 * again at 0, the trades add to it). `sameDay`: SQL true when the stored last trade is of the
 * sample's New York day. `newDay`: true when the stored quote is of an earlier day than the
 * sample — its mark is then the previous session's closing mark, the premium change's reference.
 */
const assignments = (columns: readonly string[], stored: string, sample: string, days: { sameDay: string; newDay: string }) =>
  [
    ...columns
      .filter((c) => !KEPT_COLUMNS.has(c))
      .map((c) => (c === "last" ? `last = coalesce(${sample}.last, ${stored}.last)` : `${c} = ${sample}.${c}`)),
    `volume = case when ${days.sameDay} then ${stored}.volume else 0 end`,
    `previous_mark = case when ${days.newDay} then coalesce(${markSql(stored)}, ${stored}.previous_mark) else ${stored}.previous_mark end`,
  ].join(", ");

/** The days without the stage's day columns (the rare insert of a contract another lane has just added). */
const inNewYork = (at: string) => `(${at} at time zone 'America/New_York')::date`;
const DAYS_BY_ZONE = {
  sameDay: `${inNewYork("option_quotes.last_trade_at")} = ${inNewYork("excluded.as_of")}`,
  newDay: `${inNewYork("option_quotes.as_of")} < ${inNewYork("excluded.as_of")}`,
};

/** Where a group's samples are staged (a temporary table of the session, emptied at commit). */
const STAGE = "quote_minute";
const SAMPLE_NAMES = SAMPLE_COLUMNS.map((c) => c.name);

/**
 * Applies a group's priced samples: staged by COPY, then one join updates the stored quotes (a
 * sample never replaces a newer quote); contracts not yet stored are inserted whole. The join
 * never hashes: it walks the stage in symbol order (merge join or index lookups), so rows are
 * locked in symbol order as every writer of option_quotes locks them and two lanes' batches never
 * deadlock.
 */
async function applySamples(query: TypedQuery, copy: CopyRows, samples: PricedSample[]): Promise<void> {
  if (samples.length === 0) return;
  await query(
    `create temp table if not exists ${STAGE} on commit delete rows as
     select ${SAMPLE_NAMES.join(", ")}, ${DAY_COLUMNS.map((c) => `null::timestamptz as ${c.name}`).join(", ")} from option_quotes with no data`,
  );
  await copy(
    STAGE,
    [...SAMPLE_COLUMNS, ...DAY_COLUMNS],
    samples.map((s) => s.values),
  );
  let [first, last] = [samples[0]!.event.optionSymbol, samples[0]!.event.optionSymbol];
  for (const { event } of samples)
    [first, last] = [event.optionSymbol < first ? event.optionSymbol : first, event.optionSymbol > last ? event.optionSymbol : last];
  await query(`set local work_mem = '256MB'`);
  await query(`set local enable_hashjoin = off`);
  // Bounded to the group's symbols: a merge join would otherwise read the key index from its start.
  const updated = await query(
    `with u as (
       update option_quotes o set ${assignments(SAMPLE_NAMES, "o", "s", {
         sameDay: "o.last_trade_at >= s.day_from and o.last_trade_at < s.day_to",
         newDay: "o.as_of < s.day_from",
       })}
         from (select * from ${STAGE} order by option_symbol) s
        where o.option_symbol = s.option_symbol and o.option_symbol between $1 and $2
          and (o.as_of is null or o.as_of <= s.as_of)
       returning 1)
     select count(*)::int as n from u`,
    [first, last],
  );
  // Every sample found its contract: nothing to insert (the usual minute).
  if (Number(updated.rows[0]?.n) === samples.length) return;
  // The samples not applied: no contract yet, or one listed since the update read (another lane's
  // definitions may commit in between), which the upsert below then fills. A newer quote is kept.
  const missing = await query(
    `select option_symbol from ${STAGE} s
      where not exists (select 1 from option_quotes o where o.option_symbol = s.option_symbol and o.as_of >= s.as_of)`,
  );
  const symbols = new Set(missing.rows.map((r) => r.option_symbol as string));
  const rows = samples
    .filter((s) => symbols.has(s.event.optionSymbol))
    .sort((a, b) => (a.event.optionSymbol < b.event.optionSymbol ? -1 : 1))
    .map(newQuoteRow);
  await bulkInsert(
    query,
    optionQuotes,
    rows,
    (columns) =>
      `on conflict (option_symbol) do update set ${assignments(columns, "option_quotes", "excluded", DAYS_BY_ZONE)}
        where option_quotes.as_of is null or option_quotes.as_of <= excluded.as_of`,
  );
}

/**
 * The volume and open interest a source states (a closing quote table), over the quotes its
 * samples have just set (the same `as_of`; a newer quote keeps its own), in symbol order as every
 * writer locks. A feed's samples state none: nothing runs.
 */
async function applyStated(query: TypedQuery, samples: PricedSample[]): Promise<void> {
  const stated = samples
    .filter((s) => s.event.stated)
    .sort((a, b) => (a.event.optionSymbol < b.event.optionSymbol ? -1 : 1))
    .map(({ event }) => ({ symbol: event.optionSymbol, asOf: event.asOf.toISOString(), ...event.stated! }));
  if (stated.length === 0) return;
  await query(
    `update option_quotes o set volume = v.volume, open_interest = v.open_interest
       from unnest($1::text[], $2::timestamptz[], $3::int4[], $4::int4[]) as v(option_symbol, as_of, volume, open_interest)
      where o.option_symbol = v.option_symbol and o.as_of = v.as_of`,
    [stated.map((s) => s.symbol), stated.map((s) => s.asOf), stated.map((s) => s.volume), stated.map((s) => s.openInterest)],
  );
}

/** Samples a transaction of a minute applies at most, whole underlyings at a time (an underlying may hold more). */
const CHUNK_SAMPLES = 50_000;

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
  const groups = underlyingGroups(pending, await partitionCuts(db.typedQuery));
  const spots = new Map<string, ImpliedSpot>();
  const asOf = pending.at(-1)?.asOf ?? new Date(0);
  const session = sessionOf(asOf);
  const scopesOf = ({ samples, ivs }: PricedGroup) => {
    const scopes = contractScopes(samples.map(({ event }) => ({ underlying: event.underlying, root: event.contract.root })));
    return ivs.size > 0 ? scopes.add(MARKET_IV) : scopes;
  };
  const apply = async (query: TypedQuery, copy: CopyRows, group: PricedGroup) => {
    await applySamples(query, copy, group.samples);
    await applyStated(query, group.samples);
    await writeSessionIvs(query, group.ivs, session);
  };
  const none: PricedGroup = { samples: [], ivs: new Map() };
  let next = groups.length > 0 ? priceSamples(groups[0]!, market, spots) : Promise.resolve(none);
  for (let i = 0; i < groups.length - 1; i++) {
    const group = await next;
    next = priceSamples(groups[i + 1]!, market, spots);
    await db.typedTransaction(async (query, copy) => {
      await apply(query, copy, group);
      await bumpScopes(query, { scopes: scopesOf(group), asOf });
    });
  }
  const last = await next;
  return writeAtPositions(
    db,
    feed,
    quotes,
    async (query, _pending, copy) => {
      await apply(query, copy, last);
      await writeSpots(query, spots, session);
      await moveSession(query, asOf, session);
      return { scopes: scopesOf(last), asOf };
    },
    through,
  );
}

/** The session a sample belongs to: its New York day's, or the last one before (a feed laid on the wall clock at a weekend). */
export const sessionOf = (asOf: Date): string => sessionOnOrBefore(todayInNewYork(asOf));

/** Samples priced between turns of the event loop: a minute's pricing never holds up the other lanes for long. */
const PRICE_SLICE = 2_000;

/**
 * A group's samples priced (a contract sampled in several minutes of the batch keeps its newest),
 * the spots implied at each instant recorded in `spots`, and each underlying's 30-day IV after
 * its newest instant, from its whole chain in the book.
 */
async function priceSamples(events: QuoteEvent[], market: QuoteMarket, spots: Map<string, ImpliedSpot>): Promise<PricedGroup> {
  const priced = new Map<string, PricedSample>();
  const instants = new SharedInstants();
  const newest = new Map<string, number>();
  let sliced = 0;
  for (const [at, instant] of byInstant(events)) {
    const stated = new Map<string, number>();
    for (const e of instant) {
      market.book.apply(e, e.contract);
      if (e.stated) stated.set(e.underlying, e.stated.spot);
    }
    for (const underlying of new Set(instant.map((e) => e.underlying))) {
      const q = market.dividendYields.get(underlying) ?? 0;
      const spot = stated.get(underlying) ?? market.book.spot(underlying, new Date(at), market.rate, q);
      if (spot !== null) {
        market.spots.set(underlying, spot);
        const held = spots.get(underlying);
        spots.set(underlying, {
          price: spot,
          asOf: new Date(at).toISOString(),
          open: held?.open ?? spot,
          high: Math.max(spot, held?.high ?? spot),
          low: Math.min(spot, held?.low ?? spot),
        });
      }
    }
    for (const e of instant) {
      const q = market.dividendYields.get(e.underlying) ?? 0;
      const sample = priceSample(e, market.spots.get(e.underlying) ?? null, market.rate, q, instants);
      priced.set(e.optionSymbol, sample);
      market.book.setIv(e, e.contract, sample.iv);
      newest.set(e.underlying, at);
      if (++sliced % PRICE_SLICE === 0) await setImmediate();
    }
  }
  const ivs = new Map<string, number>();
  for (const [underlying, at] of newest) {
    const spot = market.spots.get(underlying);
    const q = market.dividendYields.get(underlying) ?? 0;
    const iv = spot === undefined ? null : market.book.iv30(underlying, new Date(at), { spot, r: market.rate, q });
    if (iv !== null) ivs.set(underlying, iv);
  }
  return { samples: [...priced.values()], ivs };
}

/**
 * Items in groups of whole underlyings (in symbol order) of about `chunk` each, a new group begun
 * at each of `cuts` (ascending symbols: the screener's partition bounds, so that a partition's
 * underlyings move in one transaction and the follower rebuilds it once a minute, not once per
 * group it straddles).
 */
export function underlyingGroups<T extends { underlying: string }>(
  items: readonly T[],
  cuts: readonly string[] = [],
  chunk = CHUNK_SAMPLES,
): T[][] {
  const byUnderlying = new Map<string, T[]>();
  for (const item of items) {
    const list = byUnderlying.get(item.underlying);
    if (list) list.push(item);
    else byUnderlying.set(item.underlying, [item]);
  }
  const groups: T[][] = [];
  let group: T[] = [];
  let cut = 0;
  const close = () => {
    if (group.length > 0) groups.push(group);
    group = [];
  };
  for (const underlying of [...byUnderlying.keys()].sort()) {
    for (; cut < cuts.length && underlying >= cuts[cut]!; cut++) close();
    for (const item of byUnderlying.get(underlying)!) group.push(item);
    if (group.length >= chunk) close();
  }
  close();
  return groups;
}

/** Events grouped by sample instant (epoch ms), in time order. */
function byInstant(events: readonly QuoteEvent[]): [number, QuoteEvent[]][] {
  const groups = new Map<number, QuoteEvent[]>();
  for (const e of events) {
    const at = e.asOf.getTime();
    const group = groups.get(at);
    if (group) group.push(e);
    else groups.set(at, [e]);
  }
  return [...groups].sort((a, b) => a[0] - b[0]);
}

/** An underlying's newest spot implied in a batch of samples, and the batch's first, highest and lowest. */
interface ImpliedSpot {
  price: number;
  asOf: string;
  open: number;
  high: number;
  low: number;
}

/**
 * The implied spots as the underlyings' equity quotes (only listed underlyings; never over a
 * newer one), with the session's range of them: the session roll's daily bar.
 */
async function writeSpots(query: TypedQuery, spots: Map<string, ImpliedSpot>, session: string): Promise<void> {
  if (spots.size === 0) return;
  const symbols = [...spots.keys()];
  // A session's first batch sets its range; later ones widen it.
  const same = "equity_quotes.session_date = excluded.session_date";
  await query(
    `insert into equity_quotes (symbol, price, as_of, session_date, open, high, low)
     select s.symbol, s.price, s.as_of, $4::date, s.open, s.high, s.low
       from unnest($1::text[], $2::float8[], $3::timestamptz[], $5::float8[], $6::float8[], $7::float8[]) as s(symbol, price, as_of, open, high, low)
      where exists (select 1 from underlyings u where u.symbol = s.symbol)
     on conflict (symbol) do update set price = excluded.price, as_of = excluded.as_of, session_date = excluded.session_date,
       open = case when ${same} then equity_quotes.open else excluded.open end,
       high = case when ${same} then greatest(equity_quotes.high, excluded.high) else excluded.high end,
       low = case when ${same} then least(equity_quotes.low, excluded.low) else excluded.low end
      where equity_quotes.as_of is null or equity_quotes.as_of <= excluded.as_of`,
    [
      symbols,
      symbols.map((s) => spots.get(s)!.price),
      symbols.map((s) => spots.get(s)!.asOf),
      session,
      symbols.map((s) => spots.get(s)!.open),
      symbols.map((s) => spots.get(s)!.high),
      symbols.map((s) => spots.get(s)!.low),
    ],
  );
}

/**
 * The underlyings' 30-day IVs as their session's `iv_daily` rows, rewritten each minute: the IV
 * context and the rankings read the session's IV there, so they follow the minute, and the
 * session's last minute leaves its closing value in the history.
 */
async function writeSessionIvs(query: TypedQuery, ivs: Map<string, number>, session: string): Promise<void> {
  if (ivs.size === 0) return;
  const symbols = [...ivs.keys()].sort();
  await query(
    `insert into iv_daily (symbol, date, iv) select s.symbol, $3::date, s.iv from unnest($1::text[], $2::float8[]) as s(symbol, iv)
     on conflict (symbol, date) do update set iv = excluded.iv`,
    [symbols, symbols.map((s) => ivs.get(s)!), session],
  );
}

/**
 * A sample of a later session makes it the market's: every cache depends on the session (days to
 * expiry, rankings), so the load's version moves on too — once a day.
 */
async function moveSession(query: TypedQuery, asOf: Date, session: string): Promise<void> {
  await query(
    `update market_state set version = version + 1, as_of = greatest(as_of, $1::timestamptz), session_date = $2::date, loaded_at = now()
      where id = 1 and session_date < $2::date`,
    [asOf.toISOString(), session],
  );
}
