import { newYorkInstant } from "../../src/domain/calendar";
import type { GexContract } from "../../src/analytics/gamma-book";
import subset from "../fixtures/cboe/SPX_2022-02-04_gex_subset.csv?raw";

/** Spot printed in the file's header ("Last: 4500.5298"). */
export const SPX_SPOT = 4500.5298;
/** Assumed market for the 2022-02-04 close: 3-month T-bill ≈ 0.25%, S&P 500 dividend yield ≈ 1.3%. */
export const SPX_MARKET = { r: 0.0025, q: 0.013 };

export interface SpxRow {
  expiration: string;
  root: string;
  strike: number;
  side: "call" | "put";
  iv: number;
  /** Cboe's printed gamma (4 decimals). */
  cboeGamma: number;
  openInterest: number;
  /** Years from the 16:00 ET close to the expiry instant: 16:00 ET for SPXW, 09:30 ET for AM-settled SPX. */
  T: number;
}

const YEAR_MS = 365 * 86_400_000;
const asOf = newYorkInstant("2022-02-04", 16).getTime();

/** Both sides of every row of the trimmed quote table (README beside the fixture). */
export function spxRows(): SpxRow[] {
  const rows: SpxRow[] = [];
  for (const line of subset.trim().split("\n").slice(1)) {
    const [expiration, root, strike, callIv, callGamma, callOi, putIv, putGamma, putOi] = line.split(",") as [string, ...string[]];
    const expiry = root === "SPXW" ? newYorkInstant(expiration, 16) : newYorkInstant(expiration, 9, 30);
    const T = (expiry.getTime() - asOf) / YEAR_MS;
    const common = { expiration, root: root!, strike: Number(strike), T };
    rows.push({ ...common, side: "call", iv: Number(callIv), cboeGamma: Number(callGamma), openInterest: Number(callOi) });
    rows.push({ ...common, side: "put", iv: Number(putIv), cboeGamma: Number(putGamma), openInterest: Number(putOi) });
  }
  return rows;
}

export function spxContracts(): GexContract[] {
  return spxRows().map((r) => ({
    expiration: r.expiration,
    strike: r.strike,
    side: r.side,
    openInterest: r.openInterest,
    multiplier: 100,
    iv: r.iv,
    T: r.T,
  }));
}
