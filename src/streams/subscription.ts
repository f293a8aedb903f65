import { z } from "zod";
import { limitsFor } from "../domain/plans";
import { ApiError } from "../http/errors";
import { servedPrint, type FlowSelection, type ServedPrint } from "../market/flow";
import type { flowTailQuery } from "../market/flow-tail";
import { DEFAULT_MIN_PREMIUM, flowSelection, FlowSelectionQuery } from "../routes/flow/flow-params";
import { netFlowSelectionShape, netFlowTicker } from "../routes/flow/net-flow";
import { flowShardsOf, statusShard } from "./shard-rule";
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
  /** A state channel: the current report, then each new one; nothing to resume. */
  | { id: string; channel: "status"; shards: string[]; resume: null };

/** Each channel's filters: the query parameters of its REST twin, read by the same zod contract. */
const FILTERS = {
  flow: FlowSelectionQuery,
  netflow: z.object(netFlowSelectionShape),
  status: z.object({}),
} satisfies Record<Channel, z.ZodObject>;

function fieldError(issue: { path: PropertyKey[]; message: string }): ApiError {
  const field = String(issue.path[0] ?? "filters");
  return new ApiError("invalid_parameter", `Invalid filter '${field}': ${issue.message}.`);
}

/** The filters as the REST twin's zod contract reads them; a filter it does not know is a 400 naming it. */
function readFilters<C extends Channel>(channel: C, filters: SubscribeMessage["filters"]): z.infer<(typeof FILTERS)[C]> {
  const schema = FILTERS[channel];
  const asQuery = Object.fromEntries(Object.entries(filters ?? {}).map(([k, v]) => [k, String(v)]));
  const unknown = Object.keys(asQuery).find((k) => !(k in schema.shape));
  if (unknown !== undefined) {
    const why = channel === "status" ? "the status channel takes none" : `not a filter of ${channel}`;
    throw new ApiError("invalid_parameter", `Invalid filter '${unknown.slice(0, 32)}': ${why}.`);
  }
  const parsed = schema.safeParse(asQuery);
  if (!parsed.success) throw fieldError(parsed.error.issues[0] as { path: PropertyKey[]; message: string });
  return parsed.data as z.infer<(typeof FILTERS)[C]>;
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
