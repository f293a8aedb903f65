import { limitsFor } from "../domain/plans";
import { ApiError } from "../http/errors";
import type { FlowSelection, ServedPrint } from "../market/flow";
import { flowSelection, FlowSelectionQuery } from "../routes/flow/flow-params";
import { flowShardsOf, statusShard } from "./shard-rule";
import { readStreamCursor, resumeFrom } from "./stream-cursor";
import type { SubscribeMessage } from "./messages";

/** A print as shards hand it to hubs: the served print and its feed position. */
export type FeedPrint = ServedPrint & { id: number };

/** A validated subscription: what it selects, the shards that hold it, and where each resumes (absent: live). */
export type SubscriptionPlan =
  | { id: string; channel: "flow"; selection: FlowSelection; shards: string[]; resume: Record<string, number> | null }
  /** A state channel: the current report, then each new one; nothing to resume. */
  | { id: string; channel: "status"; shards: string[]; resume: null };

function fieldError(issue: { path: PropertyKey[]; message: string }): ApiError {
  const field = String(issue.path[0] ?? "filters");
  return new ApiError("invalid_parameter", `Invalid filter '${field}': ${issue.message}.`);
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
    const filter = Object.keys(message.filters ?? {})[0];
    if (filter !== undefined)
      throw new ApiError("invalid_parameter", `Invalid filter '${filter.slice(0, 32)}': the status channel takes none.`);
    if (message.since !== undefined)
      throw new ApiError("invalid_parameter", "Invalid 'since': the status channel resumes as state, with the current report.");
    return { id: message.id, channel: "status", shards: [statusShard(caller.accountId)], resume: null };
  }
  const asQuery = Object.fromEntries(Object.entries(message.filters ?? {}).map(([k, v]) => [k, String(v)]));
  const known = new Set(Object.keys(FlowSelectionQuery.shape));
  const unknown = Object.keys(asQuery).find((k) => !known.has(k));
  if (unknown !== undefined)
    throw new ApiError("invalid_parameter", `Invalid filter '${unknown.slice(0, 32)}': not a filter of ${message.channel}.`);
  const parsed = FlowSelectionQuery.safeParse(asQuery);
  if (!parsed.success) throw fieldError(parsed.error.issues[0] as { path: PropertyKey[]; message: string });
  const selection = flowSelection(parsed.data, limitsFor(caller.plan).flowSymbols);
  const shards = flowShardsOf(selection.tickers, caller.accountId);
  let resume: Record<string, number> | null = null;
  if (message.since !== undefined) {
    const cursor = await readStreamCursor(secrets, message.since, now);
    if (!cursor.ok && cursor.reason === "expired") {
      throw new ApiError(
        "out_of_range",
        "The cursor is older than the 7-day retention: subscribe without 'since' and backfill with /v1/flow.",
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
export function clientPrint({ id: _id, ...print }: FeedPrint): ServedPrint {
  return print;
}
