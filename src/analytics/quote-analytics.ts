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

/** The stored IV and Greeks of a contract given its IV (all null when there is none). */
export function quoteAnalytics(iv: number | null, terms: ContractTerms): QuoteAnalytics {
  if (iv === null) return { iv: null, delta: null, gamma: null, theta: null, vega: null, rho: null };
  const g = bsm({ ...terms, sigma: iv });
  return { iv, delta: g.delta, gamma: g.gamma, theta: g.theta, vega: g.vega, rho: g.rho };
}
