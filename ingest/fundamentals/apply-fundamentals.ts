import { addDays } from "../../src/domain/calendar";
import { MARKET_WIDE } from "../../src/market/scopes";
import type { VendorCompany, VendorDividend, VendorEarnings } from "../../src/vendors/fundamentals-provider";
import { dividends, earnings, equityQuotes, fundamentalsRefreshes, marketState, underlyings } from "../../src/db/schema";
import { bulkInsert, unnestRows, updateOnConflict } from "../db/bulk-insert";
import type { IngestDatabase, TypedQuery } from "../db/database";
import { queryRows, selectList, selectRows, type Row, type Selected, sqlNames } from "../db/rows";
import { bumpScopes } from "../db/versions";
import { dividendFrequency, estimatedNextDividend, paymentsPerYear } from "./dividend-schedule";
import { DIVIDENDS_DAYS_BACK, type Fetched } from "./fetch-fundamentals";

/** What a refresh found and changed, as logged and kept in `fundamentals_refreshes`. */
export interface RefreshReport {
  vendor: string;
  day: string;
  earnings: { rows: number; changed: number } | { kept: string };
  dividends: { symbols: number; changed: number; estimated: number } | { kept: string };
  companies: { symbols: number; changed: number };
  /** Symbols whose company or dividends the vendor failed to give: theirs are kept (the first 20 named). */
  failed: { count: number; first: string[] };
  unmappedIndustries: string[];
  scopesBumped: number;
}

const [UNDERLYINGS, U] = sqlNames(underlyings);
const [EARNINGS, N] = sqlNames(earnings);
const [DIVIDENDS, D] = sqlNames(dividends);
const [REFRESHES, R] = sqlNames(fundamentalsRefreshes);
const [MARKET_STATE, S] = sqlNames(marketState);
const [EQUITY_QUOTES, E] = sqlNames(equityQuotes);

/** The company columns a refresh may change, of `underlyings`. */
const COMPANY_COLUMNS = ["name", "sector", "industry", "marketCap", "peRatio", "logoUrl", "dividendYield", "dividendFrequency"] as const;
type Company = Selected<typeof underlyings, (typeof COMPANY_COLUMNS)[number]>;

/** A calendar left as stored, and why. */
type Kept = { kept: string };
type Changed = { symbols: Set<string>; changedRows: number };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * Writes what the vendor answered in one transaction, over what is stored: a value the vendor
 * does not give (a failed call, a null field) stays as it was; an empty earnings calendar, or no
 * dividend for any symbol asked, is taken for a vendor fault and the stored calendar kept. Past
 * dividends are never removed. The scopes of the underlyings whose rows changed are bumped, and
 * the calendars' (`*`) when an event or a company name changed; the day is recorded as refreshed.
 */
export async function applyFundamentals(db: IngestDatabase, vendor: string, today: string, fetched: Fetched): Promise<RefreshReport> {
  return db.typedTransaction(async (query) => {
    const listed = new Set((await selectRows(query, underlyings, ["symbol"])).map((r) => r.symbol));
    const changed = new Set<string>();
    let calendarsChanged = false;

    const companies = await applyCompanies(query, today, fetched);
    for (const s of companies.changed) changed.add(s);
    calendarsChanged ||= companies.renamed;

    const earnings: Awaited<ReturnType<typeof applyEarnings>> = fetched.earnings.ok
      ? await applyEarnings(query, fetched.earnings)
      : { kept: `not refreshed: ${fetched.earnings.reason}` };
    if ("symbols" in earnings) {
      for (const s of earnings.symbols) if (listed.has(s)) changed.add(s);
      calendarsChanged ||= earnings.symbols.size > 0;
    }
    const dividends = await applyDividends(query, today, fetched.dividends, companies.frequencies, companies.yields);
    if ("symbols" in dividends) {
      for (const s of dividends.symbols) changed.add(s);
      calendarsChanged ||= dividends.symbols.size > 0;
    }

    const scopes = new Set(changed);
    if (calendarsChanged) scopes.add(MARKET_WIDE);
    // A timestamptz as the drivers read it: a Date.
    const [state] = await queryRows<{ t: Date }>(query, `select coalesce(${S.asOf}, now()) as t from ${MARKET_STATE} where ${S.id} = 1`);
    await bumpScopes(query, { scopes, asOf: new Date(state?.t ?? Date.now()) });

    const failedSymbols = [...fetched.failed];
    const report: RefreshReport = {
      vendor,
      day: today,
      earnings: "symbols" in earnings ? { rows: earnings.rows, changed: earnings.changedRows } : earnings,
      dividends:
        "symbols" in dividends
          ? { symbols: fetched.dividends.size, changed: dividends.changedRows, estimated: dividends.estimated }
          : dividends,
      companies: { symbols: fetched.companies.size, changed: companies.changed.length },
      failed: { count: failedSymbols.length, first: failedSymbols.slice(0, 20) },
      unmappedIndustries: [...new Set([...fetched.companies.values()].flatMap((c) => (c.unmappedIndustry ? [c.unmappedIndustry] : [])))],
      scopesBumped: scopes.size,
    };
    await query(
      `insert into ${REFRESHES} (${R.day}, ${R.vendor}, ${R.report}) values ($1, $2, $3::jsonb)
       on conflict (${R.day}) do update set ${R.vendor} = excluded.${R.vendor}, ${R.report} = excluded.${R.report}, ${R.doneAt} = now()`,
      [today, vendor, JSON.stringify(report)],
    );
    return report;
  });
}

/**
 * The companies' columns merged over the stored ones, the changed rows written. Dividends decide a
 * payer's frequency (null when it paid none in the year asked) and, when the vendor's metrics give
 * no yield, its indicated yield (the last amount times the payments a year over the spot).
 */
async function applyCompanies(query: TypedQuery, today: string, fetched: Fetched) {
  const symbols = [...new Set([...fetched.companies.keys(), ...fetched.dividends.keys()])];
  const stored = await queryRows<Selected<typeof underlyings, "symbol" | (typeof COMPANY_COLUMNS)[number]> & { spot: number | null }>(
    query,
    `select ${selectList(underlyings, ["symbol", ...COMPANY_COLUMNS], "u")}, e.${E.price} as spot
     from ${UNDERLYINGS} u left join ${EQUITY_QUOTES} e on e.${E.symbol} = u.${U.symbol} where u.${U.symbol} = any($1::text[])`,
    [symbols],
  );
  const rows: (Company & { symbol: string })[] = [];
  const changed: string[] = [];
  let renamed = false;
  const frequencies = new Map<string, string | null>();
  const yields = new Map<string, number | null>();
  for (const row of stored) {
    const symbol = row.symbol;
    const before = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, row[c] ?? null])) as Company;
    const after: Company = { ...before };
    const company = fetched.companies.get(symbol);
    if (company) mergeCompany(after, company);
    const paid = fetched.dividends.get(symbol);
    if (paid) {
      const recent = paid.filter((d) => d.exDate <= today);
      const frequency = dividendFrequency(paid);
      if (paid.length === 0) Object.assign(after, { dividendFrequency: null, dividendYield: 0 });
      else if (frequency) after.dividendFrequency = frequency;
      const spot = Number(row.spot);
      const last = (recent.length > 0 ? recent : paid).at(-1)!;
      if (frequency && company?.dividendYieldPercent == null && spot > 0)
        after.dividendYield = round((last.amount * paymentsPerYear(frequency)) / spot, 6);
    }
    frequencies.set(symbol, after.dividendFrequency);
    yields.set(symbol, after.dividendYield);
    if (same(before, after)) continue;
    changed.push(symbol);
    renamed ||= before.name !== after.name;
    rows.push({ symbol, ...after });
  }
  if (rows.length > 0) {
    const v = unnestRows(underlyings, ["symbol", ...COMPANY_COLUMNS], rows, "v");
    await query(
      `update ${UNDERLYINGS} u set ${COMPANY_COLUMNS.map((c) => `${U[c]} = v.${U[c]}`).join(", ")}
       from ${v.sql}
       where u.${U.symbol} = v.${U.symbol}`,
      v.params,
    );
  }
  return { changed, renamed, frequencies, yields };
}

function mergeCompany(into: Company, c: VendorCompany): void {
  const given = <K extends keyof Company>(column: K, value: Company[K] | null) => {
    if (value !== null && value !== undefined) into[column] = value;
  };
  given("name", c.name);
  given("sector", c.sector);
  given("industry", c.industry);
  given("marketCap", c.marketCap);
  given("peRatio", c.peRatio === null ? null : round(c.peRatio, 2));
  given("logoUrl", c.logoUrl);
  given("dividendYield", c.dividendYieldPercent === null ? null : round(c.dividendYieldPercent / 100, 6));
}

const earningsKey = (symbol: string, date: string) => `${symbol}|${date}`;

/** The calendar's window replaced by the vendor's, by difference: rows it no longer lists go, new or changed ones are written. */
async function applyEarnings(
  query: TypedQuery,
  window: { from: string; to: string; rows: VendorEarnings[] },
): Promise<(Changed & { rows: number }) | Kept> {
  const vendor = new Map(window.rows.map((e) => [earningsKey(e.symbol, e.date), e]));
  const stored = await selectRows(
    query,
    earnings,
    ["symbol", "earningsDate", "timing", "fiscalQuarter", "epsEstimated", "revenueEstimated"],
    `where ${N.earningsDate} between $1 and $2`,
    [window.from, window.to],
  );
  if (vendor.size === 0 && stored.length > 0)
    return { kept: `the vendor listed no earnings from ${window.from} to ${window.to}; the ${stored.length} stored kept` };
  const storedByKey = new Map(stored.map((r) => [earningsKey(r.symbol, r.earningsDate), r]));
  const gone = stored.filter((r) => !vendor.has(earningsKey(r.symbol, r.earningsDate)));
  const written = [...vendor.values()].filter((e) => {
    const s = storedByKey.get(earningsKey(e.symbol, e.date));
    return (
      !s ||
      !same(
        [s.timing, s.fiscalQuarter, s.epsEstimated, s.revenueEstimated],
        [e.timing, e.fiscalQuarter, e.epsEstimated, e.revenueEstimated],
      )
    );
  });
  if (gone.length > 0) {
    const g = unnestRows(earnings, ["symbol", "earningsDate"], gone, "g");
    await query(
      `delete from ${EARNINGS} e using ${g.sql} where e.${N.symbol} = g.${N.symbol} and e.${N.earningsDate} = g.${N.earningsDate}`,
      g.params,
    );
  }
  await bulkInsert(
    query,
    earnings,
    written.map((e) => ({
      symbol: e.symbol,
      earningsDate: e.date,
      timing: e.timing,
      fiscalQuarter: e.fiscalQuarter,
      epsEstimated: e.epsEstimated,
      revenueEstimated: e.revenueEstimated,
    })),
    updateOnConflict([N.symbol, N.earningsDate]),
  );
  const symbols = new Set([...gone.map((r) => r.symbol), ...written.map((e) => e.symbol)]);
  return { symbols, rows: vendor.size, changedRows: gone.length + written.length };
}

/** A row of `dividends`; `same` compares two by their JSON, so each is built in the table's column order. */
type DividendRow = Row<typeof dividends>;
const DIVIDEND_COLUMNS = ["symbol", "exDate", "payDate", "amount", "yieldPercent", "frequency", "isEstimated"] as const;
const dividendKey = (symbol: string, exDate: string) => `${symbol}|${exDate}`;

/**
 * Each symbol's dividends from the vendor's answer, with the next one estimated when a regular
 * payer has not declared it; upcoming ones the vendor no longer lists are removed, past ones kept.
 * A row's yield is the symbol's indicated yield when written; a past row keeps the yield it had.
 */
async function applyDividends(
  query: TypedQuery,
  today: string,
  answered: Map<string, VendorDividend[]>,
  frequencies: Map<string, string | null>,
  yields: Map<string, number | null>,
): Promise<(Changed & { estimated: number }) | Kept> {
  const symbols = [...answered.keys()];
  const stored: DividendRow[] = await selectRows(
    query,
    dividends,
    DIVIDEND_COLUMNS,
    `where ${D.symbol} = any($1::text[]) and ${D.exDate} >= $2`,
    [symbols, addDays(today, -DIVIDENDS_DAYS_BACK)],
  );
  if (symbols.length >= 5 && [...answered.values()].every((d) => d.length === 0) && stored.some((r) => r.exDate >= today))
    return { kept: `the vendor listed no dividend for any of the ${symbols.length} symbols asked; the stored kept` };
  const storedByKey = new Map(stored.map((r) => [dividendKey(r.symbol, r.exDate), r]));
  const wanted = new Map<string, DividendRow>();
  let estimated = 0;
  for (const [symbol, paid] of answered) {
    const frequency = frequencies.get(symbol) ?? null;
    const yieldPercent = round((yields.get(symbol) ?? 0) * 100, 2);
    const next = estimatedNextDividend(paid, dividendFrequency(paid), today);
    if (next) estimated++;
    for (const [d, isEstimated] of [...paid.map((p) => [p, false] as const), ...(next ? [[next, true] as const] : [])]) {
      const key = dividendKey(symbol, d.exDate);
      const before = storedByKey.get(key);
      wanted.set(key, {
        symbol,
        exDate: d.exDate,
        payDate: d.payDate,
        amount: d.amount,
        yieldPercent: d.exDate < today && before ? before.yieldPercent : yieldPercent,
        frequency: frequency ?? before?.frequency ?? "Irregular",
        isEstimated,
      });
    }
  }
  const gone = [...storedByKey.values()].filter((r) => r.exDate >= today && !wanted.has(dividendKey(r.symbol, r.exDate)));
  const written = [...wanted.entries()].filter(([key, row]) => !same(storedByKey.get(key), row)).map(([, row]) => row);
  if (gone.length > 0) {
    const g = unnestRows(dividends, ["symbol", "exDate"], gone, "g");
    await query(
      `delete from ${DIVIDENDS} v using ${g.sql} where v.${D.symbol} = g.${D.symbol} and v.${D.exDate} = g.${D.exDate}`,
      g.params,
    );
  }
  await bulkInsert(query, dividends, written, updateOnConflict([D.symbol, D.exDate]));
  return { symbols: new Set([...gone, ...written].map((r) => r.symbol)), changedRows: gone.length + written.length, estimated };
}
