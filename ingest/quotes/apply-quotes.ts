import { equityQuotes, ivDaily, optionQuotes, underlyings } from "../../src/db/schema";
import { bulkInsert, copyColumns, unnestRows, type InsertRow } from "../db/bulk-insert";
import type { CopyColumn, CopyRows, TypedQuery } from "../db/database";
import { queryRows, selectList, type Selected, sqlNames } from "../db/rows";
import { partitionCuts } from "../screener/partitions";
import { markSql } from "./mark";
import { SAMPLE_KEYS, type ImpliedSpot, type PricedGroup, type PricedSample } from "./price-quotes";

/*
 * The SQL of a minute's quotes: a group's priced samples staged by COPY and applied to
 * `option_quotes`, the volumes a source states, the session's IVs and the implied spots; and the
 * groups themselves, which never straddle a screener partition. The pricing is `price-quotes.ts`'s,
 * the order of the transactions `write-quotes.ts`'s.
 */

const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);
const [EQUITY_QUOTES, E] = sqlNames(equityQuotes);
const [IV_DAILY, I] = sqlNames(ivDaily);
const [UNDERLYINGS, U] = sqlNames(underlyings);
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
const KEPT_COLUMNS = new Set(
  (["optionSymbol", "underlying", "root", "expiration", "strike", "side", "settlement", "multiplier", "volume"] as const).map(
    (key) => Q[key],
  ),
);

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
      .map((c) => (c === Q.last ? `${c} = coalesce(${sample}.${c}, ${stored}.${c})` : `${c} = ${sample}.${c}`)),
    `${Q.volume} = case when ${days.sameDay} then ${stored}.${Q.volume} else 0 end`,
    `${Q.previousMark} = case when ${days.newDay} then coalesce(${markSql(stored)}, ${stored}.${Q.previousMark}) else ${stored}.${Q.previousMark} end`,
  ].join(", ");

/** The days without the stage's day columns (the rare insert of a contract another lane has just added). */
const inNewYork = (at: string) => `(${at} at time zone 'America/New_York')::date`;
const DAYS_BY_ZONE = {
  sameDay: `${inNewYork(`${OPTION_QUOTES}.${Q.lastTradeAt}`)} = ${inNewYork(`excluded.${Q.asOf}`)}`,
  newDay: `${inNewYork(`${OPTION_QUOTES}.${Q.asOf}`)} < ${inNewYork(`excluded.${Q.asOf}`)}`,
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
     select ${SAMPLE_NAMES.join(", ")}, ${DAY_COLUMNS.map((c) => `null::timestamptz as ${c.name}`).join(", ")} from ${OPTION_QUOTES} with no data`,
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
  const [updated] = await queryRows<{ n: number }>(
    query,
    `with u as (
       update ${OPTION_QUOTES} o set ${assignments(SAMPLE_NAMES, "o", "s", {
         sameDay: `o.${Q.lastTradeAt} >= s.day_from and o.${Q.lastTradeAt} < s.day_to`,
         newDay: `o.${Q.asOf} < s.day_from`,
       })}
         from (select * from ${STAGE} order by ${Q.optionSymbol}) s
        where o.${Q.optionSymbol} = s.${Q.optionSymbol} and o.${Q.optionSymbol} between $1 and $2
          and (o.${Q.asOf} is null or o.${Q.asOf} <= s.${Q.asOf})
       returning 1)
     select count(*)::int as n from u`,
    [first, last],
  );
  // Every sample found its contract: nothing to insert (the usual minute).
  if (updated?.n === samples.length) return;
  // The samples not applied: no contract yet, or one listed since the update read (another lane's
  // definitions may commit in between), which the upsert below then fills. A newer quote is kept.
  const missing = await queryRows<Selected<typeof optionQuotes, "optionSymbol">>(
    query,
    `select ${selectList(optionQuotes, ["optionSymbol"], "s")} from ${STAGE} s
      where not exists (select 1 from ${OPTION_QUOTES} o where o.${Q.optionSymbol} = s.${Q.optionSymbol} and o.${Q.asOf} >= s.${Q.asOf})`,
  );
  const symbols = new Set(missing.map((r) => r.optionSymbol));
  const rows = samples
    .filter((s) => symbols.has(s.event.optionSymbol))
    .sort((a, b) => (a.event.optionSymbol < b.event.optionSymbol ? -1 : 1))
    .map(newQuoteRow);
  await bulkInsert(
    query,
    optionQuotes,
    rows,
    (columns) =>
      `on conflict (${Q.optionSymbol}) do update set ${assignments(columns, OPTION_QUOTES, "excluded", DAYS_BY_ZONE)}
        where ${OPTION_QUOTES}.${Q.asOf} is null or ${OPTION_QUOTES}.${Q.asOf} <= excluded.${Q.asOf}`,
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
    .map(({ event }) => ({
      optionSymbol: event.optionSymbol,
      asOf: event.asOf.toISOString(),
      volume: event.stated!.volume,
      openInterest: event.stated!.openInterest,
    }));
  if (stated.length === 0) return;
  const v = unnestRows(optionQuotes, ["optionSymbol", "asOf", "volume", "openInterest"], stated, "v");
  await query(
    `update ${OPTION_QUOTES} o set ${Q.volume} = v.${Q.volume}, ${Q.openInterest} = v.${Q.openInterest}
       from ${v.sql}
      where o.${Q.optionSymbol} = v.${Q.optionSymbol} and o.${Q.asOf} = v.${Q.asOf}`,
    v.params,
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
  const s = unnestRows(
    equityQuotes,
    ["symbol", "price", "asOf", "open", "high", "low"],
    [...spots].map(([symbol, spot]) => ({ symbol, ...spot })),
    "s",
    2,
  );
  const { symbol, price, asOf, sessionDate, open, high, low } = E;
  // A session's first batch sets its range; later ones widen it.
  const same = `${EQUITY_QUOTES}.${sessionDate} = excluded.${sessionDate}`;
  await query(
    `insert into ${EQUITY_QUOTES} (${symbol}, ${price}, ${asOf}, ${sessionDate}, ${open}, ${high}, ${low})
     select s.${symbol}, s.${price}, s.${asOf}, $1::date, s.${open}, s.${high}, s.${low} from ${s.sql}
      where exists (select 1 from ${UNDERLYINGS} u where u.${U.symbol} = s.${symbol})
     on conflict (${symbol}) do update set ${price} = excluded.${price}, ${asOf} = excluded.${asOf}, ${sessionDate} = excluded.${sessionDate},
       ${open} = case when ${same} then ${EQUITY_QUOTES}.${open} else excluded.${open} end,
       ${high} = case when ${same} then greatest(${EQUITY_QUOTES}.${high}, excluded.${high}) else excluded.${high} end,
       ${low} = case when ${same} then least(${EQUITY_QUOTES}.${low}, excluded.${low}) else excluded.${low} end
      where ${EQUITY_QUOTES}.${asOf} is null or ${EQUITY_QUOTES}.${asOf} <= excluded.${asOf}`,
    [session, ...s.params],
  );
}

/**
 * The underlyings' 30-day IVs as their session's `iv_daily` rows, rewritten each minute: the IV
 * context and the rankings read the session's IV there, so they follow the minute, and the
 * session's last minute leaves its closing value in the history.
 */
async function writeSessionIvs(query: TypedQuery, ivs: Map<string, number>, session: string): Promise<void> {
  if (ivs.size === 0) return;
  const rows = [...ivs.keys()].sort().map((symbol) => ({ symbol, iv: ivs.get(symbol)! }));
  const s = unnestRows(ivDaily, ["symbol", "iv"], rows, "s", 2);
  await query(
    `insert into ${IV_DAILY} (${I.symbol}, ${I.date}, ${I.iv}) select s.${I.symbol}, $1::date, s.${I.iv} from ${s.sql}
     on conflict (${I.symbol}, ${I.date}) do update set ${I.iv} = excluded.${I.iv}`,
    [session, ...s.params],
  );
}
