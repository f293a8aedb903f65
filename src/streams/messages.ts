import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../http/errors";
import { FeedLagSchema } from "../market/feed-lag";
import { FlowPrintSchema } from "../routes/flow/flow";
import { NetFlowSchema } from "../routes/flow/net-flow";
import { GexProfileSchema } from "../routes/gamma-exposure/gex";
import { OptionQuoteSchema } from "../routes/quotes-and-options/option-contract";
import { STREAM_LIMITS } from "./limits";

/**
 * The messages of `/v1/stream`, both ways, as zod schemas: the hub validates what clients send
 * with them and the API description publishes them as JSON Schema.
 */

export const CHANNELS = ["flow", "netflow", "quotes", "gex", "status"] as const;
export type Channel = (typeof CHANNELS)[number];

const SubscriptionId = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1-64 letters, digits, '_', '.', ':' or '-'")
  .describe("The client's name for the subscription; every message of it carries it back.");

/** A filter value as a query string would carry it: the REST twin's own zod contract then reads it. */
const FilterValue = z.union([z.string().max(STREAM_LIMITS.maxMessageBytes), z.number(), z.boolean()]);

export const SubscribeMessageSchema = z
  .object({
    type: z.literal("subscribe"),
    id: SubscriptionId,
    channel: z
      .enum(CHANNELS)
      .describe(
        "`flow`: prints as `/v1/flow` returns them, in feed order per shard; `netflow`: one underlying's 1-minute cumulative net flow as `/v1/flow/net` computes it; " +
          "`quotes`: contract quotes as `/v1/options/quotes` returns them, each minute's new values; `gex`: an underlying's GEX summary as `/v1/gex/{symbol}` computes it, whenever a minute changes it; " +
          "`status`: the session's phase and the feed's lag.",
      ),
    filters: z
      .record(z.string().max(32), FilterValue)
      .optional()
      .describe(
        "The REST twin's query parameters (`/v1/flow`: symbols/tickers, minPremium, side, sentiment, type, executionType; `/v1/flow/net`: symbol, minPremium; " +
          `\`quotes\`: symbols (OCC, up to ${STREAM_LIMITS.quoteContracts}) and/or underlyings (up to ${STREAM_LIMITS.quoteUnderlyings}); \`/v1/gex/{symbol}\`: symbol, minDte, maxDte, zeroDte).`,
      ),
    since: z.string().max(512).optional().describe("A cursor of this stream: deliver everything after it, then live."),
  })
  .strict();

export const UnsubscribeMessageSchema = z.object({ type: z.literal("unsubscribe"), id: SubscriptionId }).strict();
export const PingMessageSchema = z.object({ type: z.literal("ping") }).strict();
export const AckMessageSchema = z
  .object({ type: z.literal("ack"), seq: z.int().nonnegative().describe("The `seq` of the last data message read.") })
  .strict()
  .describe("WebSocket flow control: the data messages up to `seq` were read (the SDK sends it as it reads).");

export const ClientMessageSchema = z.discriminatedUnion("type", [
  SubscribeMessageSchema,
  UnsubscribeMessageSchema,
  PingMessageSchema,
  AckMessageSchema,
]);
export type SubscribeMessage = z.infer<typeof SubscribeMessageSchema>;

const Cursor = z.string().describe("Opaque, signed: resume with `since` (WebSocket) or `Last-Event-ID` (SSE).");

export const WelcomeMessageSchema = z.object({
  type: z.literal("welcome"),
  stream: z.string().describe("This stream's id (for support)."),
  heartbeatMs: z.int().describe(`A heartbeat comes at least this often (${STREAM_LIMITS.heartbeatMs} ms).`),
  maxSubscriptions: z.int(),
});
export const SubscribedMessageSchema = z.object({
  type: z.literal("subscribed"),
  id: SubscriptionId,
  channel: z.enum(CHANNELS),
  cursor: Cursor.optional().describe(
    "Where the subscription starts (`flow`, `netflow`); a state channel (`quotes`, `gex`, `status`) has none.",
  ),
});
export const UnsubscribedMessageSchema = z.object({ type: z.literal("unsubscribed"), id: SubscriptionId });
export const FlowMessageSchema = z.object({
  type: z.literal("flow"),
  id: SubscriptionId,
  seq: z.int().describe("This stream's data messages, numbered from 1: acknowledge with `ack` (WebSocket)."),
  cursor: Cursor.describe("Resumes after the last print of this message."),
  prints: z.array(FlowPrintSchema),
});
export const NetflowMessageSchema = z.object({
  type: z.literal("netflow"),
  id: SubscriptionId,
  seq: z.int().describe("This stream's data messages, numbered from 1: acknowledge with `ack` (WebSocket)."),
  cursor: Cursor.describe("Resumes after the last print this message counts."),
  ticker: z.string(),
  session: z.iso.date().describe("The session the points belong to: a new session starts the sums over."),
  points: NetFlowSchema.shape.points.describe(
    "The minutes the new prints moved, chronological, each cumulative from the session's first minute as `/v1/flow/net` gives it: " +
      "replace the points you hold with the same `t`. The first message of a subscription without `since` carries the whole session so far.",
  ),
});
export const QuotesMessageSchema = z.object({
  type: z.literal("quotes"),
  id: SubscriptionId,
  seq: z.int().describe("This stream's data messages, numbered from 1: acknowledge with `ack` (WebSocket)."),
  quotes: z
    .array(OptionQuoteSchema)
    .describe(
      "Quotes as `/v1/options/quotes` returns them: first every subscribed contract's current quote, then each minute the contracts whose quote it moved. " +
        "Replace the quote you hold for the same `optionSymbol`.",
    ),
  missing: z.array(z.string()).optional().describe("In the first message only: requested contracts that were not found, as sent."),
});
export const GexSummarySchema = GexProfileSchema.omit({ strikes: true, disclaimer: true });
export type GexSummary = z.infer<typeof GexSummarySchema>;
export const GexMessageSchema = GexSummarySchema.extend({
  type: z.literal("gex"),
  id: SubscriptionId,
  seq: z.int().describe("This stream's data messages, numbered from 1: acknowledge with `ack` (WebSocket)."),
}).describe("`/v1/gex/{symbol}`'s profile without its strikes: at once, then whenever a minute changes anything but `asOf`.");
export const StatusMessageSchema = z.object({
  type: z.literal("status"),
  id: SubscriptionId,
  time: z.iso.datetime(),
  session: z.object({
    date: z.iso.date().describe("Today's session (ET), or the next one when today has none."),
    phase: z.enum(["pre_open", "open", "closed"]),
    earlyClose: z.boolean().describe("The session closes at 13:00 ET."),
    opensAt: z.iso.datetime(),
    closesAt: z.iso.datetime(),
  }),
  feeds: z
    .array(FeedLagSchema)
    .describe("How far the ingestor has stored each feed's schemas: a lag growing while the session is open is a broken feed."),
});

export const HeartbeatMessageSchema = z.object({
  type: z.literal("heartbeat"),
  time: z.iso.datetime(),
  cursors: z.record(z.string(), Cursor).describe("Each subscription's cursor now: resuming with it skips what was filtered out since."),
});
export const PongMessageSchema = z.object({ type: z.literal("pong") });
export const ErrorMessageSchema = z.object({
  type: z.literal("error"),
  id: SubscriptionId.optional().describe("The subscription the error is about, when there is one."),
  error: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).describe("The REST error code of the same failure."),
  message: z.string(),
});
export const LaggedMessageSchema = z.object({
  type: z.literal("lagged"),
  message: z.string(),
  cursors: z.record(z.string(), Cursor).describe("Resume each subscription from here on a new stream: nothing is lost."),
});

export const ClosingMessageSchema = z
  .object({
    type: z.literal("closing"),
    code: z.int().describe("The WebSocket close code the same end would carry (see the close codes)."),
    reason: z.string(),
  })
  .describe("SSE only: the stream ends after this event (a WebSocket gets a close frame with the same code and reason).");

export const ServerMessageSchema = z.discriminatedUnion("type", [
  WelcomeMessageSchema,
  SubscribedMessageSchema,
  UnsubscribedMessageSchema,
  FlowMessageSchema,
  NetflowMessageSchema,
  QuotesMessageSchema,
  GexMessageSchema,
  StatusMessageSchema,
  HeartbeatMessageSchema,
  PongMessageSchema,
  ErrorMessageSchema,
  LaggedMessageSchema,
  ClosingMessageSchema,
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;
/** A `status` message without its subscription id: what a status shard hands every hub. */
export type StatusReport = Omit<z.infer<typeof StatusMessageSchema>, "type" | "id">;
