import type { OptionSide } from "./black-scholes";

/** One listed contract as the GEX analytics need it. Nullable fields mirror `option_quotes`. */
export interface GexContract {
  /** YYYY-MM-DD. */
  expiration: string;
  strike: number;
  side: OptionSide;
  /** Contracts open (previous session). */
  openInterest: number | null;
  /** Deliverable shares per contract (100 standard, 10 for minis, adjusted contracts differ). */
  multiplier: number;
  /** Implied volatility, decimal. */
  iv: number | null;
  /** Years to the expiry instant (calendar time / 365), as for pricing. */
  T: number;
}

/** Market inputs shared by every contract of one underlying. */
export interface GexMarket {
  /** Continuously compounded risk-free rate, decimal. */
  r: number;
  /** Continuous dividend (or borrow) yield, decimal. */
  q: number;
}

/**
 * The contracts that carry gamma exposure, laid out in typed arrays for the re-pricing loops.
 *
 * A contract's exposure at a hypothetical spot x, in dollars per 1% move, is
 *   s·Γ(x)·OI·M·x²·0.01 = 0.01·x·weight·exp(−d²/2),  d = a·(ln x − ln K) + c,
 * with Γ the Black-Scholes-Merton gamma per $1 (`bsm().gamma`), s = +1 for calls and −1 for puts,
 * weight = s·OI·M·e^{−qT}/(σ√T·√(2π)), a = 1/(σ√T), c = (r − q + σ²/2)T/(σ√T). Subtracting ln K
 * before scaling by a keeps d accurate for contracts minutes from expiry, where a is in the hundreds.
 * Each contract keeps its IV, strike, time, rate and yield at every x (sticky strike).
 */
export interface GammaBook {
  /** Contracts kept. */
  n: number;
  strike: Float64Array;
  /** +1 call, −1 put. */
  sign: Float64Array;
  /** Index into `expirations`. */
  expiry: Int32Array;
  /** Distinct expirations of the kept contracts, chronological. */
  expirations: string[];
  /** OI × multiplier: shares of deliverable per unit of per-share gamma. */
  shares: Float64Array;
  weight: Float64Array;
  a: Float64Array;
  lnK: Float64Array;
  c: Float64Array;
  /** Contracts dropped: no IV, no open interest, expired, or non-finite inputs. */
  excluded: number;
}

const INV_SQRT_2PI = 0.3989422804014327;

/**
 * A sum of exposures whose magnitude is at most this fraction of the sum of their absolute values
 * is zero to the precision of the sum (n terms carry up to about n·2⁻⁵³ of the gross in rounding).
 */
const NOISE_RELATIVE = 1e-12;

/** True when `net` is indistinguishable from zero given `gross`, the sum of the absolute terms. */
export function isSummationNoise(net: number, gross: number): boolean {
  return !(Math.abs(net) > NOISE_RELATIVE * Math.abs(gross));
}

/**
 * Exposure as served: whole dollars (a strike or cell of a large book holds millions; smaller
 * units are noise, and a heatmap's thousands of cells would carry them as bytes); -0 becomes 0.
 */
function inDollars(dollars: number): number {
  return Math.round(dollars) || 0;
}

/** Exposures as served: call and put in whole dollars, net their sum (so net = call + put holds exactly on the wire). */
export function servedExposure(call: number, put: number): { callGex: number; putGex: number; netGex: number } {
  const callGex = inDollars(call);
  const putGex = inDollars(put);
  return { callGex, putGex, netGex: callGex + putGex };
}

/** Dollars of dealer gamma exposure per 1% move of one contract line: s·Γ·OI·M·S²·0.01 (calls ≥ 0, puts ≤ 0). */
export function contractGex(side: OptionSide, gamma: number, openInterest: number, multiplier: number, spot: number): number {
  return (side === "call" ? 1 : -1) * gamma * openInterest * multiplier * spot * spot * 0.01;
}

/**
 * Lays out the contracts that carry exposure. Dropped (counted in `excluded`): IV missing, not
 * finite or ≤ 0; open interest missing or ≤ 0; T ≤ 0 (expired: no gamma); strike or multiplier
 * not finite and positive.
 */
export function gammaBook(contracts: readonly GexContract[], { r, q }: GexMarket): GammaBook {
  const kept = new Int32Array(contracts.length);
  let n = 0;
  // Rows usually arrive grouped by expiration: remember the last one instead of hashing every string.
  const seen = new Set<string>();
  let lastExpiration: string | null = null;
  for (let i = 0; i < contracts.length; i++) {
    const c = contracts[i]!;
    const iv = c.iv ?? Number.NaN;
    const oi = c.openInterest ?? Number.NaN;
    if (!(iv > 0 && iv < Infinity && oi > 0 && oi < Infinity && c.T > 0 && c.T < Infinity && c.strike > 0 && c.multiplier > 0)) continue;
    kept[n++] = i;
    if (c.expiration !== lastExpiration) {
      seen.add(c.expiration);
      lastExpiration = c.expiration;
    }
  }
  const expirations = [...seen].sort();
  const expiryIndex = new Map(expirations.map((e, i) => [e, i]));
  const book: GammaBook = {
    n,
    strike: new Float64Array(n),
    sign: new Float64Array(n),
    expiry: new Int32Array(n),
    expirations,
    shares: new Float64Array(n),
    weight: new Float64Array(n),
    a: new Float64Array(n),
    lnK: new Float64Array(n),
    c: new Float64Array(n),
    excluded: contracts.length - n,
  };
  lastExpiration = null;
  let lastIndex = 0;
  for (let k = 0; k < n; k++) {
    const c = contracts[kept[k]!]!;
    const sigma = c.iv as number;
    const volT = sigma * Math.sqrt(c.T);
    const sign = c.side === "call" ? 1 : -1;
    const shares = (c.openInterest as number) * c.multiplier;
    if (c.expiration !== lastExpiration) {
      lastExpiration = c.expiration;
      lastIndex = expiryIndex.get(c.expiration)!;
    }
    book.strike[k] = c.strike;
    book.sign[k] = sign;
    book.expiry[k] = lastIndex;
    book.shares[k] = shares;
    book.weight[k] = (sign * shares * Math.exp(-q * c.T) * INV_SQRT_2PI) / volT;
    book.a[k] = 1 / volT;
    book.lnK[k] = Math.log(c.strike);
    book.c[k] = ((r - q + 0.5 * sigma * sigma) * c.T) / volT;
  }
  return book;
}

/** Black-Scholes-Merton gamma per $1 of contract k at spot x (equal to `bsm().gamma`). */
export function bookGamma(book: GammaBook, k: number, x: number): number {
  const d = book.a[k]! * (Math.log(x) - book.lnK[k]!) + book.c[k]!;
  return (book.sign[k]! * book.weight[k]! * Math.exp(-0.5 * d * d)) / (book.shares[k]! * x);
}

/** Signed dollars per 1% move of contract k at spot x. */
export function bookContractGex(book: GammaBook, k: number, x: number): number {
  const d = book.a[k]! * (Math.log(x) - book.lnK[k]!) + book.c[k]!;
  return 0.01 * x * book.weight[k]! * Math.exp(-0.5 * d * d);
}
