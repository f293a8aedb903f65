import type { VendorOutcome } from "./vendor-outcome";

/** An earnings date as a vendor announces it. */
export interface VendorEarnings {
  symbol: string;
  date: string;
  timing: "bmo" | "amc" | "dmh" | "unknown";
  /** e.g. `Q1 2027` (the company's fiscal quarter and year), null when the vendor gives none. */
  fiscalQuarter: string | null;
  epsEstimated: number | null;
  revenueEstimated: number | null;
}

/** A declared cash dividend. */
export interface VendorDividend {
  exDate: string;
  payDate: string;
  /** USD per share. */
  amount: number;
}

/** What a vendor says of a company; null where it says nothing (the stored value then stands). */
export interface VendorCompany {
  name: string | null;
  sector: string | null;
  industry: string | null;
  /** USD. */
  marketCap: number | null;
  peRatio: number | null;
  /** The indicated annual dividend yield, percent (3.1 means 3.1%). */
  dividendYieldPercent: number | null;
  logoUrl: string | null;
  /** The vendor's industry when it maps to none of our sectors (logged, so the table can grow). */
  unmappedIndustry: string | null;
}

/** A source of calendars and company fundamentals. Calls resolve to an outcome, never throw: the refresh counts failures. */
export interface FundamentalsProvider {
  readonly name: string;
  /** Every earnings date the vendor lists in [from, to] (ET dates), all symbols. */
  earnings(from: string, to: string): Promise<VendorOutcome<VendorEarnings[]>>;
  /** The symbol's dividends with ex-dates in [from, to], oldest first. */
  dividends(symbol: string, from: string, to: string): Promise<VendorOutcome<VendorDividend[]>>;
  /** The company's profile and metrics; null when the vendor does not know the symbol. */
  company(symbol: string): Promise<VendorOutcome<VendorCompany | null>>;
}
