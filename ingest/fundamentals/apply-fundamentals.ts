import { addDays } from "../../src/domain/calendar";
import { MARKET_WIDE } from "../../src/market/scopes";
import type { VendorCompany, VendorDividend, VendorEarnings } from "../../src/vendors/fundamentals-provider";
import type { IngestDatabase, TypedQuery } from "../db/database";
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

/** The company columns a refresh may change, in `underlyings`' names. */
const COMPANY_COLUMNS = [
  "name",
  "sector",
  "industry",
  "market_cap",
  "pe_ratio",
  "logo_url",
  "dividend_yield",
  "dividend_frequency",
] as const;
type Company = Record<(typeof COMPANY_COLUMNS)[number], string | number | null>;
const COMPANY_TYPES = ["text", "text", "text", "float8", "float8", "text", "float8", "text"];

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
    const listed = new Set((await query(`select symbol from underlyings`)).rows.map((r) => r.symbol as string));
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
    const asOf = (await query(`select coalesce(as_of, now()) as t from market_state where id = 1`)).rows[0]?.t as string | undefined;
    await bumpScopes(query, { scopes, asOf: new Date(asOf ?? Date.now()) });

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
      `insert into fundamentals_refreshes (day, vendor, report) values ($1, $2, $3::jsonb)
       on conflict (day) do update set vendor = excluded.vendor, report = excluded.report, done_at = now()`,
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
  const stored = await query(
    `select u.symbol, ${COMPANY_COLUMNS.map((c) => `u.${c}`).join(", ")}, e.price as spot
     from underlyings u left join equity_quotes e on e.symbol = u.symbol where u.symbol = any($1::text[])`,
    [symbols],
  );
  const rows: Company[] = [];
  const changed: string[] = [];
  let renamed = false;
  const frequencies = new Map<string, string | null>();
  const yields = new Map<string, number | null>();
  for (const row of stored.rows) {
    const symbol = row.symbol as string;
    const before = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, row[c] ?? null])) as Company;
    const after: Company = { ...before };
    const company = fetched.companies.get(symbol);
    if (company) mergeCompany(after, company);
    const paid = fetched.dividends.get(symbol);
    if (paid) {
      const recent = paid.filter((d) => d.exDate <= today);
      const frequency = dividendFrequency(paid);
      if (paid.length === 0) Object.assign(after, { dividend_frequency: null, dividend_yield: 0 });
      else if (frequency) after.dividend_frequency = frequency;
      const spot = Number(row.spot);
      const last = (recent.length > 0 ? recent : paid).at(-1)!;
      if (frequency && company?.dividendYieldPercent == null && spot > 0)
        after.dividend_yield = round((last.amount * paymentsPerYear(frequency)) / spot, 6);
    }
    frequencies.set(symbol, after.dividend_frequency as string | null);
    yields.set(symbol, after.dividend_yield as number | null);
    if (same(before, after)) continue;
    changed.push(symbol);
    renamed ||= before.name !== after.name;
    rows.push(after);
  }
  if (rows.length > 0)
    await query(
      `update underlyings u set ${COMPANY_COLUMNS.map((c) => `${c} = v.${c}`).join(", ")}
       from unnest($1::text[], ${COMPANY_COLUMNS.map((_, i) => `$${i + 2}::${COMPANY_TYPES[i]}[]`).join(", ")})
         as v(symbol, ${COMPANY_COLUMNS.join(", ")})
       where u.symbol = v.symbol`,
      [changed, ...COMPANY_COLUMNS.map((c) => rows.map((r) => r[c]))],
    );
  return { changed, renamed, frequencies, yields };
}

function mergeCompany(into: Company, c: VendorCompany): void {
  const given: Partial<Company> = {
    name: c.name,
    sector: c.sector,
    industry: c.industry,
    market_cap: c.marketCap,
    pe_ratio: c.peRatio === null ? null : round(c.peRatio, 2),
    logo_url: c.logoUrl,
    dividend_yield: c.dividendYieldPercent === null ? null : round(c.dividendYieldPercent / 100, 6),
  };
  for (const [column, value] of Object.entries(given)) if (value !== null && value !== undefined) into[column as keyof Company] = value;
}

const earningsKey = (symbol: string, date: string) => `${symbol}|${date}`;

/** The calendar's window replaced by the vendor's, by difference: rows it no longer lists go, new or changed ones are written. */
async function applyEarnings(
  query: TypedQuery,
  window: { from: string; to: string; rows: VendorEarnings[] },
): Promise<(Changed & { rows: number }) | Kept> {
  const vendor = new Map(window.rows.map((e) => [earningsKey(e.symbol, e.date), e]));
  const stored = await query(
    `select symbol, earnings_date::text as date, timing, fiscal_quarter, eps_estimated, revenue_estimated
     from earnings where earnings_date between $1 and $2`,
    [window.from, window.to],
  );
  if (vendor.size === 0 && stored.rows.length > 0)
    return { kept: `the vendor listed no earnings from ${window.from} to ${window.to}; the ${stored.rows.length} stored kept` };
  const storedByKey = new Map(stored.rows.map((r) => [earningsKey(r.symbol as string, r.date as string), r]));
  const gone = stored.rows.filter((r) => !vendor.has(earningsKey(r.symbol as string, r.date as string)));
  const written = [...vendor.values()].filter((e) => {
    const s = storedByKey.get(earningsKey(e.symbol, e.date));
    return (
      !s ||
      !same(
        [s.timing, s.fiscal_quarter, s.eps_estimated, s.revenue_estimated],
        [e.timing, e.fiscalQuarter, e.epsEstimated, e.revenueEstimated],
      )
    );
  });
  if (gone.length > 0)
    await query(
      `delete from earnings e using unnest($1::text[], $2::date[]) as g(symbol, d) where e.symbol = g.symbol and e.earnings_date = g.d`,
      [gone.map((r) => r.symbol), gone.map((r) => r.date)],
    );
  if (written.length > 0)
    await query(
      `insert into earnings (symbol, earnings_date, timing, fiscal_quarter, eps_estimated, revenue_estimated)
       select * from unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::float8[], $6::float8[])
       on conflict (symbol, earnings_date) do update set timing = excluded.timing, fiscal_quarter = excluded.fiscal_quarter,
         eps_estimated = excluded.eps_estimated, revenue_estimated = excluded.revenue_estimated`,
      [
        written.map((e) => e.symbol),
        written.map((e) => e.date),
        written.map((e) => e.timing),
        written.map((e) => e.fiscalQuarter),
        written.map((e) => e.epsEstimated),
        written.map((e) => e.revenueEstimated),
      ],
    );
  const symbols = new Set([...gone.map((r) => r.symbol as string), ...written.map((e) => e.symbol)]);
  return { symbols, rows: vendor.size, changedRows: gone.length + written.length };
}

interface DividendRow {
  symbol: string;
  exDate: string;
  payDate: string;
  amount: number;
  yieldPercent: number;
  frequency: string;
  isEstimated: boolean;
}
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
  const stored = await query(
    `select symbol, ex_date::text as ex_date, pay_date::text as pay_date, amount, yield_percent, frequency, is_estimated
     from dividends where symbol = any($1::text[]) and ex_date >= $2`,
    [symbols, addDays(today, -DIVIDENDS_DAYS_BACK)],
  );
  if (symbols.length >= 5 && [...answered.values()].every((d) => d.length === 0) && stored.rows.some((r) => (r.ex_date as string) >= today))
    return { kept: `the vendor listed no dividend for any of the ${symbols.length} symbols asked; the stored kept` };
  const storedByKey = new Map(
    stored.rows.map((r) => [
      dividendKey(r.symbol as string, r.ex_date as string),
      {
        symbol: r.symbol as string,
        exDate: r.ex_date as string,
        payDate: r.pay_date as string,
        amount: r.amount as number,
        yieldPercent: r.yield_percent as number,
        frequency: r.frequency as string,
        isEstimated: r.is_estimated as boolean,
      } satisfies DividendRow,
    ]),
  );
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
  if (gone.length > 0)
    await query(
      `delete from dividends v using unnest($1::text[], $2::date[]) as g(symbol, d) where v.symbol = g.symbol and v.ex_date = g.d`,
      [gone.map((r) => r.symbol), gone.map((r) => r.exDate)],
    );
  if (written.length > 0)
    await query(
      `insert into dividends (symbol, ex_date, pay_date, amount, yield_percent, frequency, is_estimated)
       select * from unnest($1::text[], $2::date[], $3::date[], $4::float8[], $5::float8[], $6::text[], $7::bool[])
       on conflict (symbol, ex_date) do update set pay_date = excluded.pay_date, amount = excluded.amount,
         yield_percent = excluded.yield_percent, frequency = excluded.frequency, is_estimated = excluded.is_estimated`,
      [
        written.map((r) => r.symbol),
        written.map((r) => r.exDate),
        written.map((r) => r.payDate),
        written.map((r) => r.amount),
        written.map((r) => r.yieldPercent),
        written.map((r) => r.frequency),
        written.map((r) => r.isEstimated),
      ],
    );
  return { symbols: new Set([...gone, ...written].map((r) => r.symbol)), changedRows: gone.length + written.length, estimated };
}
