import { addDays } from "../../domain/calendar";
import { ApiError } from "../../http/errors";
import { booleanParam, dteParams, dteWindow, type DteQuery } from "../../http/query-params";

export const GEX_DEFAULT_MAX_DTE = 60;
export const GEX_MAX_DTE = 730;

/** The DTE parameters of both GEX routes. */
export const gexWindowParams = {
  ...dteParams({
    maxBound: GEX_MAX_DTE,
    maxDoc: `Maximum days to expiration (default ${GEX_DEFAULT_MAX_DTE}, at most ${GEX_MAX_DTE}; 0 selects same-day expirations only).`,
    maxDefault: GEX_DEFAULT_MAX_DTE,
  }),
  zeroDte: booleanParam({ description: "Only same-day expirations; with maxDte above 0 gives 400 invalid_parameter." }),
};

/** A GEX request's window parameters, as given. */
export type GexWindowQuery = DteQuery & { zeroDte?: boolean };

/** The expiration dates [from, to] a GEX request covers, from the spec's DTE rules. */
export function gexWindow(q: GexWindowQuery, today: string): { from: string; to: string } {
  const window = dteWindow(q, { zeroMaxIsUnset: false });
  if (q.zeroDte) {
    if (window.max !== undefined && window.max > 0) {
      throw new ApiError(
        "invalid_parameter",
        `Invalid query parameter 'zeroDte': it selects same-day expirations, so maxDte (${window.max}) must be 0 or absent.`,
      );
    }
    if (window.min > 0) throw new ApiError("invalid_range", `zeroDte selects same-day expirations, so minDte (${window.min}) must be 0.`);
    return { from: today, to: today };
  }
  // A minDte beyond the default maximum selects nothing, as on the expiration schedule.
  const max = window.max ?? GEX_DEFAULT_MAX_DTE;
  return { from: addDays(today, window.min), to: addDays(today, max) };
}
