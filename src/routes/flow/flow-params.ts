import { z } from "zod";
import { flowWindow, type FlowWindowRequest, RETENTION_DAYS } from "../../domain/flow-window";
import { tickerParam } from "../../domain/symbols";
import { ApiError } from "../../http/errors";
import { aliased } from "../../http/input-checks";
import { dateParam, numberParam } from "../../http/query-params";

export const DEFAULT_MIN_PREMIUM = 10_000;

/** A ticker parameter where a blank value means "not given". */
export const optionalTicker = (description: string) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), tickerParam.optional().describe(description));

export const flowWindowShape = {
  from: dateParam.describe(
    `First day (YYYY-MM-DD, ET); a weekend or holiday starts at the next session. More than ${RETENTION_DAYS} days before today's ET date (the retention), or after the newest session, gives 400 out_of_range. Alias: fromDate.`,
  ),
  fromDate: dateParam.describe("Alias of from."),
  to: dateParam.describe("Last session (YYYY-MM-DD, ET); past the newest session it is cut back to it. Alias: toDate."),
  toDate: dateParam.describe("Alias of to."),
};

export const minPremiumParam = numberParam(
  {
    description: `Smallest premium counted, USD (default ${DEFAULT_MIN_PREMIUM}; smaller values are allowed).`,
    default: DEFAULT_MIN_PREMIUM,
  },
  { min: 0 },
);

export interface FlowWindowQuery {
  from?: string;
  fromDate?: string;
  to?: string;
  toDate?: string;
}

/** The window of a flow request, or the spec's 400 for it. */
export function requestedWindow(q: FlowWindowQuery, rules: Omit<FlowWindowRequest, "from" | "to">) {
  const from = aliased(q, "from", "fromDate");
  const window = flowWindow({ ...rules, from, to: aliased(q, "to", "toDate") });
  if (!window.ok) throw new ApiError(window.error, window.message);
  return { ...window, requestedFrom: from };
}

/** A `from` after the newest session in the feed is out of range (known once the query has read it). */
export function rejectFromAfterNewest(from: string | undefined, newest: string | null): void {
  if (from !== undefined && newest !== null && from > newest) {
    throw new ApiError("out_of_range", `from (${from}) is after the newest session in the feed (${newest}).`);
  }
}
