import { z } from "zod";
import { limitsFor } from "../domain/plans";
import { ApiError } from "../http/errors";
import { servedPrint, type FlowSelection, type ServedPrint } from "../market/flow";
import type { flowTailQuery } from "../market/flow-tail";
import { DEFAULT_MIN_PREMIUM, flowSelection, FlowSelectionQuery, optionalTicker } from "../routes/flow/flow-params";
import { netFlowSelectionShape, netFlowTicker } from "../routes/flow/net-flow";
import { parseOcc } from "../domain/occ";
import { TICKER } from "../domain/symbols";
import { todayInNewYork } from "../domain/calendar";
import { gexWindow, gexWindowParams } from "../routes/gamma-exposure/gex-window";
import { occSymbols } from "../routes/quotes-and-options/batch-quotes";
import { STREAM_LIMITS } from "./limits";
import type { MarketInterest } from "./market-shard";
import { flowShardsOf, marketShard, statusShard } from "./shard-rule";
import { readStreamCursor, resumeFrom } from "./stream-cursor";
import type { Channel, SubscribeMessage } from "./messages";

/** A print as shards hand it to hubs: the served print, its feed position, and what net flow sums by. */
export type FeedPrint = ServedPrint & { id: number; session: string; printClass: "regular" | "complex" | "canceled" };

export function feedPrint(row: Awaited<ReturnType<typeof flowTailQuery>>[number]): FeedPrint {
  return { ...servedPrint(row), id: row.id, session: row.sessionDate, printClass: row.printClass };
}

/** A channel that follows the feed of prints: its messages carry cursors and resume exactly once. */
export type FeedChannel = "flow" | "netflow";

/** A validated subscription: what it selects, the shards that hold it, and where each resumes (absent: live). */
export type SubscriptionPlan =
  | { id: string; channel: FeedChannel; selection: FlowSelection; shards: string[]; resume: Record<string, number> | null }
  /** A state channel of the market: the current values from its shards, then each minute's changes; nothing to resume. */
  | {
      id: string;
      channel: "quotes" | "gex";
      shards: string[];
      interests: Record<string, MarketInterest>;
      /** `quotes`: the contracts asked for, canonical → as sent (what is not found is reported as sent). */
      requested?: [string, string][];
      resume: null;
    }
  /** A state channel: the current report, then each new one; nothing to resume. */
  | { id: string; channel: "status"; shards: string[]; resume: null };

/** Each channel's filters: the query parameters of its REST twin, read by the same zod contract (the API description lists them too). */
export const CHANNEL_FILTERS = {
  flow: FlowSelectionQuery,
  netflow: z.object(netFlowSelectionShape),
  quotes: z.object({
    symbols: z
      .string()
      .max(STREAM_LIMITS.quoteContracts * 24)
      .optional()
      .describe(`Comma-separated OCC symbols, at most ${STREAM_LIMITS.quoteContracts}.`),
    underlyings: z
      .string()
      .max(STREAM_LIMITS.quoteUnderlyings * 11)
      .optional()
      .describe(`Comma-separated underlyings whose every contract is followed, at most ${STREAM_LIMITS.quoteUnderlyings}.`),
  }),
  gex: z.object({ symbol: optionalTicker("The underlying (required)."), ...gexWindowParams }),
  status: z.object({}),
} satisfies Record<Channel, z.ZodObject>;

function fieldError(issue: { path: PropertyKey[]; message: string }): ApiError {
  const field = String(issue.path[0] ?? "filters");
  return new ApiError("invalid_parameter", `Invalid filter '${field}': ${issue.message}.`);
}

/** The filters as the REST twin's zod contract reads them; a filter it does not know is a 400 naming it. */
function readFilters<C extends Channel>(channel: C, filters: SubscribeMessage["filters"]): z.infer<(typeof CHANNEL_FILTERS)[C]> {
  const schema = CHANNEL_FILTERS[channel];
  const asQuery = Object.fromEntries(Object.entries(filters ?? {}).map(([k, v]) => [k, String(v)]));
  const unknown = Object.keys(asQuery).find((k) => !(k in schema.shape));
  if (unknown !== undefined) {
    const why = channel === "status" ? "the status channel takes none" : `not a filter of ${channel}`;
    throw new ApiError("invalid_parameter", `Invalid filter '${unknown.slice(0, 32)}': ${why}.`);
  }
  const parsed = schema.safeParse(asQuery);
  if (!parsed.success) throw fieldError(parsed.error.issues[0] as { path: PropertyKey[]; message: string });
  return parsed.data as z.infer<(typeof CHANNEL_FILTERS)[C]>;
}

/**
 * A subscribe message checked as its REST twin checks a request (the same zod contract, the same
 * plan limits), its cursor verified: the plan, or the `ApiError` the REST route would answer.
 */
export async function planSubscription(
  message: SubscribeMessage,
  caller: { accountId: number; plan: string | null },
  secrets: readonly string[],
  now: number,
): Promise<SubscriptionPlan> {
  if (message.channel === "status") {
    readFilters("status", message.filters);
    if (message.since !== undefined)
      throw new ApiError("invalid_parameter", "Invalid 'since': the status channel resumes as state, with the current report.");
    return { id: message.id, channel: "status", shards: [statusShard(caller.accountId)], resume: null };
  }
  if (message.channel === "quotes" || message.channel === "gex") {
    if (message.since !== undefined)
      throw new ApiError("invalid_parameter", `Invalid 'since': the ${message.channel} channel resumes as state, with the current values.`);
    return message.channel === "quotes" ? planQuotes(message.id, message.filters) : planGex(message.id, message.filters, now);
  }
  let selection: FlowSelection;
  if (message.channel === "netflow") {
    const q = readFilters("netflow", message.filters);
    selection = { tickers: [netFlowTicker(q)], minPremium: q.minPremium ?? DEFAULT_MIN_PREMIUM };
  } else {
    selection = flowSelection(readFilters("flow", message.filters), limitsFor(caller.plan).flowSymbols);
  }
  const shards = flowShardsOf(selection.tickers, caller.accountId);
  let resume: Record<string, number> | null = null;
  if (message.since !== undefined) {
    const cursor = await readStreamCursor(secrets, message.since, now);
    if (!cursor.ok && cursor.reason === "expired") {
      throw new ApiError(
        "out_of_range",
        `The cursor is older than the 7-day retention: subscribe without 'since' and backfill with ${message.channel === "flow" ? "/v1/flow" : "/v1/flow/net"}.`,
      );
    }
    if (!cursor.ok) throw new ApiError("invalid_parameter", "Invalid 'since': not a cursor of this stream.");
    resume = Object.fromEntries(shards.map((s) => [s, resumeFrom(cursor.position, s)]));
  }
  return { id: message.id, channel: message.channel, selection, shards, resume };
}

/** A `quotes` subscription: its contracts by root and its whole underlyings, each scope at its shard. */
function planQuotes(id: string, filters: SubscribeMessage["filters"]): SubscriptionPlan {
  const q = readFilters("quotes", filters);
  const underlyings = [...new Set(commaList(q.underlyings))];
  const bad = underlyings.find((u) => !TICKER.test(u));
  if (bad !== undefined) throw new ApiError("invalid_parameter", `Invalid filter 'underlyings': '${bad.slice(0, 12)}' is not a ticker.`);
  if (underlyings.length > STREAM_LIMITS.quoteUnderlyings)
    throw new ApiError(
      "invalid_parameter",
      `Invalid filter 'underlyings': at most ${STREAM_LIMITS.quoteUnderlyings}, got ${underlyings.length}.`,
    );
  if (q.symbols === undefined && underlyings.length === 0)
    throw new ApiError("missing_symbol", "The quotes channel needs 'symbols' (OCC contracts) or 'underlyings'.");
  const { bySymbol } =
    q.symbols === undefined ? { bySymbol: new Map<string, string>() } : occSymbols(q.symbols, STREAM_LIMITS.quoteContracts);
  const interests: Record<string, Extract<MarketInterest, { kind: "quotes" }>> = {};
  const add = (scope: string, symbol: string | null) => {
    const interest = (interests[marketShard(scope)] ??= { kind: "quotes", scopes: {} });
    const held = interest.scopes[scope];
    interest.scopes[scope] = symbol === null ? null : held === null ? null : [...(held ?? []), symbol];
  };
  for (const u of underlyings) add(u, null);
  for (const canonical of bySymbol.keys()) add((parseOcc(canonical) as { root: string }).root, canonical);
  return { id, channel: "quotes", shards: Object.keys(interests).sort(), interests, requested: [...bySymbol], resume: null };
}

/** A `gex` subscription: one underlying and a window `/v1/gex/{symbol}` accepts (checked against today's date as the route checks it). */
function planGex(id: string, filters: SubscribeMessage["filters"], now: number): SubscriptionPlan {
  const { symbol, ...window } = readFilters("gex", filters);
  if (symbol === undefined) throw new ApiError("missing_symbol", "The gex channel needs 'symbol'.");
  gexWindow(window, todayInNewYork(new Date(now)));
  const shard = marketShard(symbol);
  return { id, channel: "gex", shards: [shard], interests: { [shard]: { kind: "gex", symbol, window } }, resume: null };
}

const commaList = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** Whether a print belongs to a selection (the shard already kept standing prints only). */
export function selects(selection: FlowSelection, print: FeedPrint): boolean {
  return (
    (selection.tickers.length === 0 || selection.tickers.includes(print.ticker)) &&
    print.premium >= selection.minPremium &&
    (selection.sentiment === undefined || print.sentiment === selection.sentiment) &&
    (selection.side === undefined || print.side === selection.side) &&
    (selection.optionType === undefined || print.optionType === selection.optionType) &&
    (selection.executionType === undefined || print.executionType === selection.executionType)
  );
}

/** The print as the client receives it (its feed position travels in the cursor). */
export function clientPrint({ id: _id, session: _session, printClass: _class, ...print }: FeedPrint): ServedPrint {
  return print;
}
