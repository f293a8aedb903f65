/** The scopes the market's versions are kept by (market_versions.scope), beside one per underlying and option root. Pure: the ingestor writes them, the Worker reads them. */

/** The scope of the views that span the market and move only with a load (calendars). */
export const MARKET_WIDE = "*";

/**
 * The scope of the market-wide views of the session's IVs (the rankings): it moves whenever any
 * underlying's intraday IV is written, a minute's change of every chain, while the calendars stay warm.
 */
export const MARKET_IV = "*:iv";

/**
 * The scope of what trades change of an underlying's or a root's contracts — last price, last
 * trade time, session volume: the views that show them depend on it as well as on the scope
 * itself; GEX, IV and schedules do not, so a trade every few milliseconds leaves them warm.
 */
export const tradedScope = (scope: string): string => `${scope}:traded`;
