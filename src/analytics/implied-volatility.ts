import { erf, erfcx, normCdf } from "./normal";
import type { ContractTerms, OptionSide } from "./black-scholes";

const SQRT_2PI = Math.sqrt(2 * Math.PI);
const MAX_ITERATIONS = 64;
/** Total volatility σ√T beyond which no quoted price is meaningful (σ = 5000% for a year). */
const MAX_TOTAL_VOL = 50;

/**
 * Normalised out-of-the-money Black call b(x, s) = e^{x/2}Φ(x/s + s/2) − e^{−x/2}Φ(x/s − s/2) for
 * x = ln(F/K) ≤ 0 and s = σ√T > 0, returned as its natural log so that deep out-of-the-money
 * prices neither underflow nor lose digits.
 *
 * Near the money (s² ≥ 2|x|) the difference of the two Φ terms is rewritten as a sum of two erf
 * values of opposite sign, which has no cancellation. Far from the money both Φ terms are tails,
 * and factoring out e^{−(h²+t²)/2} leaves a difference of two scaled complementary error
 * functions (erfcx) of well-separated arguments.
 */
export function logNormalisedOtmCall(x: number, s: number): number {
  const h = x / s;
  const t = s / 2;
  if (h + t >= 0) {
    const b = Math.exp(x / 2) * 0.5 * (erf((h + t) * Math.SQRT1_2) - erf((h - t) * Math.SQRT1_2)) + 2 * Math.sinh(x / 2) * normCdf(h - t);
    return Math.log(b);
  }
  const scaled = 0.5 * (erfcx(-(h + t) * Math.SQRT1_2) - erfcx((t - h) * Math.SQRT1_2));
  return -0.5 * (h * h + t * t) + Math.log(scaled);
}

/** ∂ ln b / ∂s, computed without forming b so it stays finite far from the money. */
function logVega(x: number, s: number, logB: number): number {
  const h = x / s;
  const t = s / 2;
  return Math.exp(-0.5 * (h * h + t * t) - logB) / SQRT_2PI;
}

/**
 * Total implied volatility s = σ√T of an undiscounted, normalised out-of-the-money call price
 * beta = b(x, s), x ≤ 0. Safeguarded Halley iteration on ln b(s) − ln beta, which is smooth and
 * increasing in s; every step is kept inside a bracket that shrinks with each evaluation.
 */
function solveTotalVol(x: number, beta: number): number | null {
  const target = Math.log(beta);
  let lo = 0;
  let hi = MAX_TOTAL_VOL;
  if (logNormalisedOtmCall(x, hi) < target) return null;
  let s = x < 0 ? Math.sqrt(-2 * x) : beta * SQRT_2PI;
  if (!(s > 0 && s < hi)) s = 1;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const logB = logNormalisedOtmCall(x, s);
    const g = logB - target;
    if (g === 0) return s;
    if (g < 0) lo = s;
    else hi = s;
    const g1 = logVega(x, s, logB);
    const g2 = g1 * ((x * x) / (s * s * s) - s / 4) - g1 * g1;
    const newton = g / g1;
    const halleyDenominator = 1 - (newton * g2) / (2 * g1);
    const step = halleyDenominator > 0.5 ? newton / halleyDenominator : newton;
    let next = s - step;
    if (!(next > lo && next < hi)) next = lo > 0 ? Math.sqrt(lo * hi) : hi / 2;
    if (Math.abs(next - s) <= 4 * Number.EPSILON * s) return next;
    s = next;
  }
  return s;
}

export type ImpliedVolInputs = ContractTerms & {
  /** Option price (discounted, per share). */
  price: number;
};

/**
 * Black-Scholes-Merton implied volatility (decimal) of a European option price, or null when the
 * price lies outside the no-arbitrage bounds (at or below intrinsic, at or above the maximum) or
 * the inputs are not finite and positive. Never clamps.
 */
export function impliedVolatility({ price, S, K, T, r, q, side }: ImpliedVolInputs): number | null {
  if (![price, S, K, T, r, q].every(Number.isFinite) || !(S > 0 && K > 0 && T > 0)) return null;
  const forward = S * Math.exp((r - q) * T);
  const s = impliedTotalVolFromBlack(price * Math.exp(r * T), forward, K, side);
  return s === null ? null : s / Math.sqrt(T);
}

/** Implied σ√T of an undiscounted Black price, or null outside the no-arbitrage bounds. */
export function impliedTotalVolFromBlack(undiscounted: number, F: number, K: number, side: OptionSide): number | null {
  const theta = side === "call" ? 1 : -1;
  const intrinsic = Math.max(theta * (F - K), 0);
  const upper = side === "call" ? F : K;
  if (!(undiscounted > intrinsic) || !(undiscounted < upper)) return null;
  // Put-call parity turns an in-the-money option into the out-of-the-money one of the same
  // strike; normalising by √(FK) makes the OTM price a call on x = −|ln(F/K)|.
  const otm = undiscounted - intrinsic;
  const x = -Math.abs(Math.log(F / K));
  const beta = otm / Math.sqrt(F * K);
  if (!(beta > 0)) return null;
  return solveTotalVol(x, beta);
}

/** Implied volatility of an undiscounted Black price with time to expiry T, or null. */
export function blackImpliedVolatility(undiscounted: number, F: number, K: number, T: number, side: OptionSide): number | null {
  if (!(T > 0)) return null;
  const s = impliedTotalVolFromBlack(undiscounted, F, K, side);
  return s === null ? null : s / Math.sqrt(T);
}
