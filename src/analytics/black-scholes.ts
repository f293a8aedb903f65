import { normCdf, normPdf } from "./normal";

export type OptionSide = "call" | "put";

export interface BsmInputs {
  /** Spot price. */
  S: number;
  /** Strike. */
  K: number;
  /** Years to expiry (calendar days / 365). */
  T: number;
  /** Continuously compounded risk-free rate, decimal. */
  r: number;
  /** Continuous dividend yield, decimal. */
  q: number;
  /** Annualised volatility, decimal. */
  sigma: number;
  side: OptionSide;
}

/** A contract and its market, without a volatility. */
export type ContractTerms = Omit<BsmInputs, "sigma">;

/** Price and Greeks in the API's units: theta per calendar day, vega and rho per 1 percentage point. */
export interface BsmResult {
  price: number;
  delta: number;
  gamma: number;
  theta: number;
  vega: number;
  rho: number;
}

/**
 * Price and Greeks. At expiry (T <= 0) or zero volatility the option is worth its discounted
 * forward intrinsic value and its Greeks are those of that payoff.
 */
export function bsm({ S, K, T, r, q, sigma, side }: BsmInputs): BsmResult {
  const phi = side === "call" ? 1 : -1;
  const dq = Math.exp(-q * T);
  const dr = Math.exp(-r * T);
  const volT = sigma * Math.sqrt(T);
  if (!(T > 0) || !(volT > 0)) {
    const forwardItm = phi * (S * dq - K * dr) > 0;
    return {
      price: Math.max(phi * (S * dq - K * dr), 0),
      delta: forwardItm ? phi * dq : 0,
      gamma: 0,
      theta: 0,
      vega: 0,
      rho: forwardItm ? (phi * K * T * dr) / 100 : 0,
    };
  }
  const d1 = (Math.log(S / K) + (r - q + 0.5 * sigma * sigma) * T) / volT;
  const d2 = d1 - volT;
  const nd1 = normCdf(phi * d1);
  const nd2 = normCdf(phi * d2);
  const pdf1 = normPdf(d1);
  const price = phi * (S * dq * nd1 - K * dr * nd2);
  const thetaYear = (-S * dq * pdf1 * sigma) / (2 * Math.sqrt(T)) - phi * r * K * dr * nd2 + phi * q * S * dq * nd1;
  return {
    price,
    delta: phi * dq * nd1,
    gamma: (dq * pdf1) / (S * volT),
    theta: thetaYear / 365,
    vega: (S * dq * pdf1 * Math.sqrt(T)) / 100,
    rho: (phi * K * T * dr * nd2) / 100,
  };
}
