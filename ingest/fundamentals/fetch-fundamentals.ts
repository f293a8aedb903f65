import type { underlyings } from "../../src/db/schema";
import { addDays } from "../../src/domain/calendar";
import type { FundamentalsProvider, VendorCompany, VendorDividend, VendorEarnings } from "../../src/vendors/fundamentals-provider";
import type { VendorOutcome } from "../../src/vendors/vendor-outcome";
import type { Row } from "../db/rows";
import { forEachConcurrently } from "../pipeline/for-each-concurrently";

/** How far ahead the earnings calendar is refreshed (the calendars' longest window), asked a week at a time. */
export const EARNINGS_DAYS_AHEAD = 90;
const EARNINGS_CHUNK_DAYS = 7;
/** Dividends asked per symbol: a year back (the frequency's gaps), half a year ahead. */
export const DIVIDENDS_DAYS_BACK = 400;
const DIVIDENDS_DAYS_AHEAD = 180;
/** Calls failing in a row that mean the vendor is down: the refresh stops asking and keeps everything. */
const OUTAGE_STREAK = 10;
const CONCURRENCY = 4;

/** An underlying to refresh: stocks get their company and dividends, funds their dividends, indexes nothing. */
export type Listed = Row<typeof underlyings, "symbol" | "assetType">;

/** What the vendor answered; a symbol absent from a map failed (listed in `failed`) or, for companies, is unknown to the vendor. */
export interface Fetched {
  earnings: { ok: true; from: string; to: string; rows: VendorEarnings[] } | { ok: false; reason: string };
  companies: Map<string, VendorCompany>;
  dividends: Map<string, VendorDividend[]>;
  failed: Set<string>;
}

/** The vendor refused the key or is down: nothing of this refresh is written. */
export class VendorUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VendorUnavailable";
  }
}

/** Spaces calls `60 000 / callsPerMinute` ms apart, whoever makes them. */
export function pacer(callsPerMinute: number): () => Promise<void> {
  const gapMs = 60_000 / callsPerMinute;
  let next = 0;
  return async () => {
    const now = Date.now();
    const at = Math.max(now, next);
    next = at + gapMs;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  };
}

/**
 * Asks the vendor for the earnings calendar from `today` on and for each listed underlying's
 * company and dividends, `callsPerMinute` at most. A refused key, or `OUTAGE_STREAK` failures in a
 * row, throws `VendorUnavailable`; other failures are collected for the refresh to keep those values.
 */
export async function fetchFundamentals(
  provider: FundamentalsProvider,
  listed: readonly Listed[],
  today: string,
  options: { callsPerMinute: number },
): Promise<Fetched> {
  const pace = pacer(options.callsPerMinute);
  let streak = 0;
  const call: Call = async <T>(calls: number, ask: () => Promise<VendorOutcome<T>>): Promise<VendorOutcome<T>> => {
    for (let i = 0; i < calls; i++) await pace();
    const outcome = await ask();
    if (outcome.ok) streak = 0;
    else if (outcome.denied) throw new VendorUnavailable(`${provider.name} refused the key (${outcome.reason})`);
    else if (++streak >= OUTAGE_STREAK)
      throw new VendorUnavailable(`${provider.name}: ${streak} calls failed in a row, the last ${outcome.reason}`);
    return outcome;
  };

  const fetched: Fetched = {
    earnings: await fetchEarnings(provider, today, call),
    companies: new Map(),
    dividends: new Map(),
    failed: new Set(),
  };
  const tasks: (() => Promise<void>)[] = [];
  for (const { symbol, assetType } of listed) {
    if (assetType === "index") continue;
    if (assetType === "stock")
      tasks.push(async () => {
        const got = await call(2, () => provider.company(symbol));
        if (!got.ok) fetched.failed.add(symbol);
        else if (got.value) fetched.companies.set(symbol, got.value);
      });
    tasks.push(async () => {
      const got = await call(1, () =>
        provider.dividends(symbol, addDays(today, -DIVIDENDS_DAYS_BACK), addDays(today, DIVIDENDS_DAYS_AHEAD)),
      );
      if (!got.ok) fetched.failed.add(symbol);
      else fetched.dividends.set(symbol, got.value);
    });
  }
  await forEachConcurrently(tasks, CONCURRENCY, (task) => task());
  return fetched;
}

type Call = <T>(calls: number, ask: () => Promise<VendorOutcome<T>>) => Promise<VendorOutcome<T>>;

/** The calendar from `today` to `EARNINGS_DAYS_AHEAD` days on, a week a call; whole, or failed. */
async function fetchEarnings(provider: FundamentalsProvider, today: string, call: Call): Promise<Fetched["earnings"]> {
  const to = addDays(today, EARNINGS_DAYS_AHEAD);
  const rows: VendorEarnings[] = [];
  for (let from = today; from <= to; from = addDays(from, EARNINGS_CHUNK_DAYS)) {
    const last = addDays(from, EARNINGS_CHUNK_DAYS - 1);
    const until = last < to ? last : to;
    const got = await call(1, () => provider.earnings(from, until));
    if (!got.ok) return { ok: false, reason: `${from}..${until}: ${got.reason}` };
    rows.push(...got.value);
  }
  return { ok: true, from: today, to, rows };
}
