import { ENTITLEMENT_REASONS } from "../domain/entitlement-reasons";
import { FlowSelectionQuery } from "../routes/flow/flow-params";
import { CLOSE_CODES, STREAM_LIMITS } from "../streams/limits";
import { CHANNELS, ClientMessageSchema, ServerMessageSchema } from "../streams/messages";
import { errorResponse, jsonSchema, type JsonSchema } from "./json-schema";

/** The message schemas of `/v1/stream`, both ways, as the description's components. */
export const STREAM_SCHEMAS: Record<string, JsonSchema> = {
  StreamClientMessage: jsonSchema(ClientMessageSchema, "input"),
  StreamServerMessage: jsonSchema(ServerMessageSchema, "output"),
};

const CLOSE_MEANINGS: Record<keyof typeof CLOSE_CODES, string> = {
  invalid_api_key: "the key was revoked (checked at every heartbeat)",
  not_entitled: "the account's trial ended or its subscription lapsed; the reason is the REST error code",
  lagged: "slow consumer: resume from the `lagged` message's cursors",
  restarting: "the service restarts or its database is away: reconnect and resume",
};

const DESCRIPTION = `Push: the options flow as it prints. A WebSocket (send \`Upgrade: websocket\`) or, with \`Accept: text/event-stream\`,
Server-Sent Events. The key goes in \`Authorization: Bearer\` only, as for every route (a browser app opens the stream from its
own backend). Opening counts one request against the per-minute limit, and so does each subscribe; a stream holds no in-flight slot.
An account holds at most ${STREAM_LIMITS.streamsPerAccount} streams (\`/v1/usage\` shows them), each at most ${STREAM_LIMITS.subscriptionsPerStream} subscriptions.

**Channels**: ${CHANNELS.map((c) => `\`${c}\``).join(", ")}. \`flow\`: prints as \`/v1/flow\` returns them, filtered with its
parameters. \`status\` (no filters): the session's phase (pre-open, open, closed, early close) and each feed schema's lag, at once
and every 5 s, so a quiet market can be told from a broken feed.

**WebSocket**: send \`{"type":"subscribe","id":"a","channel":"flow","filters":{"tickers":"SPY,QQQ","minPremium":50000}}\`
(\`StreamClientMessage\`); the stream answers \`subscribed\`, then \`flow\` messages (\`StreamServerMessage\`). Acknowledge data
messages as you read them, \`{"type":"ack","seq":n}\`: at most ${STREAM_LIMITS.maxBufferedBytes} bytes may be unacknowledged.
A bad message gets an \`error\` message with the REST error code and the field; the stream stays open.

**SSE**: one subscription from the query string (\`channel\`, \`id\`, \`since\` and the filters); each message is an event named
by its type, and a \`flow\` event's id is its cursor, so \`Last-Event-ID\` resumes. Unread bytes count against the same bound.

**Resume**: every \`flow\` message carries a signed \`cursor\`; subscribe with \`since\` (or SSE's \`Last-Event-ID\`) and the
stream delivers everything after it, from the database then live, with no gap and no duplicate, anywhere in the 7-day retention
(older: \`out_of_range\`). Heartbeats (at least every ${STREAM_LIMITS.heartbeatMs / 1000} s) carry each subscription's cursor.

**Close codes**: ${Object.entries(CLOSE_CODES)
  .map(([name, code]) => `${code} ${CLOSE_MEANINGS[name as keyof typeof CLOSE_CODES]}`)
  .join("; ")}. Deploys cut every socket: reconnect and resume.`;

/** `GET /v1/stream` in the API description: not a route spec (it answers 101 or an event stream), described here from the same types. */
export function streamOperation(): JsonSchema {
  const filters = jsonSchema(FlowSelectionQuery, "input") as { properties: Record<string, JsonSchema & { description?: string }> };
  return {
    operationId: "openStream",
    summary: "Push stream (WebSocket or SSE)",
    description: DESCRIPTION,
    tags: ["Streams"],
    parameters: [
      { name: "channel", in: "query", required: false, description: "SSE: the channel.", schema: { enum: [...CHANNELS] } },
      { name: "id", in: "query", required: false, description: "SSE: the subscription's id (default `sse`).", schema: { type: "string" } },
      { name: "since", in: "query", required: false, description: "SSE: a cursor to resume after.", schema: { type: "string" } },
      ...Object.entries(filters.properties).map(([name, { description, ...schema }]) => ({
        name,
        in: "query",
        required: false,
        description: `SSE, \`flow\`: ${description ?? ""}`,
        schema,
      })),
      { name: "Last-Event-ID", in: "header", required: false, description: "SSE: resume after this cursor.", schema: { type: "string" } },
    ],
    responses: {
      "101": { description: "WebSocket: `StreamClientMessage` in, `StreamServerMessage` out." },
      "200": {
        description: "Server-Sent Events: each event's data is a `StreamServerMessage` of the event's name.",
        content: { "text/event-stream": { schema: { $ref: "#/components/schemas/StreamServerMessage" } } },
      },
      "400": errorResponse(
        "A bad SSE subscription (the REST route's validation).",
        ["invalid_parameter", "out_of_range", "credentials_in_query"],
        400,
      ),
      "401": errorResponse("Missing, malformed or invalid key.", ["missing_api_key", "invalid_api_key"], 401),
      "403": errorResponse("Entitlement or credential rejection.", [...ENTITLEMENT_REASONS, "wrong_credential_type"], 403),
      "426": errorResponse("Neither a WebSocket upgrade nor `Accept: text/event-stream`.", ["upgrade_required"], 426),
      "429": errorResponse(
        "Throttled, or the account's streams are all open.",
        ["rate_limited", "too_many_streams", "too_many_auth_failures"],
        429,
      ),
      "500": errorResponse("Unhandled internal error.", ["internal_error"], 500),
      "503": errorResponse("The database is unavailable; retry shortly.", ["service_unavailable"], 503),
    },
  };
}
