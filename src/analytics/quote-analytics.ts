import { bsm, type ContractTerms } from "./black-scholes";

/** IV (decimal) and Greeks in API units: null where they could not be computed. */
export interface QuoteAnalytics {
  iv: number | null;
  delta: number | null;
  gamma: number | null;
  theta: number | null;
  vega: number | null;
  rho: number | null;
}

/**
 * The stored IV and Greeks of a contract given its IV: the Greeks are null when there is no IV, and
 * when the contract has expired (T ≤ 0: time to expiry ends at settlement), which keeps the IV as given.
 */
export function quoteAnalytics(iv: number | null, terms: ContractTerms): QuoteAnalytics {
  if (iv === null || !(terms.T > 0)) return { iv, delta: null, gamma: null, theta: null, vega: null, rho: null };
  const g = bsm({ ...terms, sigma: iv });
  return { iv, delta: g.delta, gamma: g.gamma, theta: g.theta, vega: g.vega, rho: g.rho };
}
