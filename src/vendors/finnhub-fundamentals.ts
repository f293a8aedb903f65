import { z } from "zod";
import { finnhubGet, type FinnhubOptions, type RetryPolicy } from "./finnhub-http";
import { SECTOR_OF_FINNHUB_INDUSTRY } from "./finnhub-sectors";
import type { FundamentalsProvider, VendorCompany, VendorDividend, VendorEarnings } from "./fundamentals-provider";
import type { VendorOutcome } from "./vendor-outcome";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const num = z.number().nullable().optional();
const text = z.string().nullable().optional();

/** `GET /calendar/earnings?from=&to=`: `hour` is `bmo`, `amc`, `dmh` or empty; `quarter` and `year` the fiscal period. */
const EarningsCalendar = z.object({
  earningsCalendar: z.array(
    z.object({
      symbol: z.string().min(1),
      date: day,
      hour: text,
      quarter: num,
      year: num,
      epsEstimate: num,
      revenueEstimate: num,
    }),
  ),
});

/** `GET /stock/dividend?symbol=&from=&to=`: `date` is the ex-date; amounts in `currency`. */
const Dividends = z.array(
  z.object({
    date: day,
    amount: z.number(),
    payDate: text,
    currency: text,
  }),
);

/** `GET /stock/profile2?symbol=`: `{}` for a symbol Finnhub does not know; market cap in millions. */
const Profile = z.object({
  name: text,
  finnhubIndustry: text,
  marketCapitalization: num,
  logo: text,
});

/** `GET /stock/metric?symbol=&metric=all`: `metric` holds the figures (P/E, yields in percent), any of them null. */
const Metric = z.object({
  metric: z
    .object({
      peTTM: num,
      peBasicExclExtraTTM: num,
      dividendYieldIndicatedAnnual: num,
      currentDividendYieldTTM: num,
    })
    .nullable()
    .optional(),
});

const TIMINGS = new Set(["bmo", "amc", "dmh"]);
/** A daily job can afford patience: three tries a few seconds apart, a `Retry-After` of up to a minute honoured. */
const RETRY: RetryPolicy = { attempts: 3, delayMs: 2_000, maxWaitMs: 60_000 };

const present = (s: string | null | undefined): string | null => (s && s.trim() !== "" ? s.trim() : null);
const finite = (n: number | null | undefined): number | null => (n !== null && n !== undefined && Number.isFinite(n) ? n : null);

/** Finnhub's calendar, dividend, profile and metric endpoints as calendars and company fundamentals. */
export class FinnhubFundamentals implements FundamentalsProvider {
  readonly name = "finnhub";

  constructor(
    private readonly options: FinnhubOptions,
    private readonly retry: RetryPolicy = RETRY,
  ) {}

  async earnings(from: string, to: string): Promise<VendorOutcome<VendorEarnings[]>> {
    const got = await finnhubGet(this.options, "/calendar/earnings", { from, to }, EarningsCalendar, this.retry);
    if (!got.ok) return got;
    return {
      ok: true,
      value: got.value.earningsCalendar.map((e) => ({
        symbol: e.symbol,
        date: e.date,
        timing: e.hour && TIMINGS.has(e.hour) ? (e.hour as VendorEarnings["timing"]) : "unknown",
        fiscalQuarter: e.quarter && e.year ? `Q${e.quarter} ${e.year}` : null,
        epsEstimated: finite(e.epsEstimate),
        revenueEstimated: finite(e.revenueEstimate),
      })),
    };
  }

  async dividends(symbol: string, from: string, to: string): Promise<VendorOutcome<VendorDividend[]>> {
    const got = await finnhubGet(this.options, "/stock/dividend", { symbol, from, to }, Dividends, this.retry);
    if (!got.ok) return got;
    // A dividend without a pay date is not yet one the calendar can show; one in another currency is not a USD amount.
    const value = got.value
      .filter((d) => d.amount > 0 && d.payDate && day.safeParse(d.payDate).success && (!d.currency || d.currency === "USD"))
      .map((d) => ({ exDate: d.date, payDate: d.payDate!, amount: d.amount }))
      .sort((a, b) => (a.exDate < b.exDate ? -1 : a.exDate > b.exDate ? 1 : 0));
    return { ok: true, value };
  }

  async company(symbol: string): Promise<VendorOutcome<VendorCompany | null>> {
    const profile = await finnhubGet(this.options, "/stock/profile2", { symbol }, Profile, this.retry);
    if (!profile.ok) return profile;
    const p = profile.value;
    if (!present(p.name)) return { ok: true, value: null };
    const metric = await finnhubGet(this.options, "/stock/metric", { symbol, metric: "all" }, Metric, this.retry);
    if (!metric.ok) return metric;
    const m = metric.value.metric ?? {};
    // Finnhub writes "N/A" for a company it has not classified.
    const industry = p.finnhubIndustry === "N/A" ? null : present(p.finnhubIndustry);
    const sector = industry ? (SECTOR_OF_FINNHUB_INDUSTRY[industry] ?? null) : null;
    const cap = finite(p.marketCapitalization);
    return {
      ok: true,
      value: {
        name: present(p.name),
        sector,
        industry,
        marketCap: cap !== null && cap > 0 ? cap * 1e6 : null,
        peRatio: finite(m.peTTM) ?? finite(m.peBasicExclExtraTTM),
        dividendYieldPercent: finite(m.dividendYieldIndicatedAnnual) ?? finite(m.currentDividendYieldTTM),
        logoUrl: present(p.logo),
        unmappedIndustry: industry && !sector ? industry : null,
      },
    };
  }
}
