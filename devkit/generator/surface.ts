import type { UnderlyingProfile } from "./universe";

/**
 * Implied volatility surface of one underlying: an ATM term structure (upward for indices and
 * ETFs, lifted before a near earnings date for stocks) times a smile in standardised moneyness
 * with the negative equity skew.
 */
export interface Surface {
  vol(strike: number, forward: number, years: number): number;
}

export function surfaceFor(u: UnderlyingProfile, yearsToEarnings: number | null): Surface {
  const indexLike = u.assetType !== "stock";
  const skew = indexLike ? -0.16 : -0.07;
  const curvature = indexLike ? 0.035 : 0.045;
  return {
    vol(strike, forward, years) {
      const t = Math.max(years, 1 / 365);
      let atm = u.atmVol * (indexLike ? 0.88 + 0.12 * Math.min(Math.sqrt(t / 0.25), 2) : 1.05 - 0.05 * Math.min(t / 0.5, 2));
      if (yearsToEarnings !== null && yearsToEarnings < t) {
        // Earnings variance (a ~6% move) added to the diffusive variance of expiries after the event.
        atm = Math.sqrt(atm * atm + (0.06 * 0.06) / t);
      }
      const m = Math.log(strike / forward) / (atm * Math.sqrt(t));
      const smile = 1 + skew * m + curvature * m * m;
      return atm * Math.min(Math.max(smile, 0.6), 2.5);
    },
  };
}
