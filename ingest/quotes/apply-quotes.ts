import { optionQuotes } from "../../src/db/schema";
import { bulkInsert, copyColumns, type InsertRow } from "../db/bulk-insert";
import type { CopyColumn, CopyRows, TypedQuery } from "../db/database";
import { partitionCuts } from "../screener/partitions";
import { markSql } from "./mark";
import { SAMPLE_KEYS, type ImpliedSpot, type PricedGroup, type PricedSample } from "./price-quotes";

/*
 * The SQL of a minute's quotes: a group's priced samples staged by COPY and applied to
 * `option_quotes`, the volumes a source states, the session's IVs and the implied spots; and the
 * groups themselves, which never straddle a screener partition. The pricing is `price-quotes.ts`'s,
 * the order of the transactions `write-quotes.ts`'s.
 */

const SAMPLE_COLUMNS = copyColumns(optionQuotes, SAMPLE_KEYS);

/** The stage's other columns: the New York day of the sample's time, from its midnight to the next. */
const DAY_COLUMNS: CopyColumn[] = [
  { name: "day_from", type: "timestamptz" },
  { name: "day_to", type: "timestamptz" },
];

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

/**
 * Applies a group's priced samples, the volumes they state and its underlyings' IVs for `session`,
 * in the caller's transaction.
 */
export async function applyGroup(query: TypedQuery, copy: CopyRows, group: PricedGroup, session: string): Promise<void> {
  await applySamples(query, copy, group.samples);
  await applyStated(query, group.samples);
  await writeSessionIvs(query, group.ivs, session);
}

/** The groups whole underlyings of `items` are applied in, one transaction each: cut at the screener's partition bounds. */
export async function quoteGroups<T extends { underlying: string }>(query: TypedQuery, items: readonly T[]): Promise<T[][]> {
  return underlyingGroups(items, await partitionCuts(query));
}

/** Samples a transaction of a minute applies at most, whole underlyings at a time (an underlying may hold more). */
const CHUNK_SAMPLES = 50_000;

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

/**
 * The implied spots as the underlyings' equity quotes (only listed underlyings; never over a
 * newer one), with the session's range of them: the session roll's daily bar.
 */
export async function writeSpots(query: TypedQuery, spots: Map<string, ImpliedSpot>, session: string): Promise<void> {
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
