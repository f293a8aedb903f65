import { ENTITLEMENT_REASONS } from "../domain/entitlement-reasons";
import { CLOSE_CODES, STREAM_LIMITS } from "../streams/limits";
import { CHANNELS, ClientMessageSchema, ServerMessageSchema } from "../streams/messages";
import { CHANNEL_FILTERS } from "../streams/subscription";
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

const DESCRIPTION = `Push: the options flow as it prints, net flow, quotes and GEX as each minute moves them. A WebSocket (send \`Upgrade: websocket\`) or, with \`Accept: text/event-stream\`,
Server-Sent Events. The key goes in \`Authorization: Bearer\` only, as for every route (a browser app opens the stream from its
own backend). Opening counts one request against the per-minute limit, and so does each subscribe; a stream holds no in-flight slot.
An account holds at most ${STREAM_LIMITS.streamsPerAccount} streams (\`/v1/usage\` shows them), each at most ${STREAM_LIMITS.subscriptionsPerStream} subscriptions.

**Channels**: ${CHANNELS.map((c) => `\`${c}\``).join(", ")}, each filtered with its REST twin's parameters. \`flow\`: prints as
\`/v1/flow\` returns them. \`netflow\`: one underlying's 1-minute cumulative net flow as \`/v1/flow/net\` computes it, the
session's series first, then the points each batch of prints moved. \`quotes\`: contract quotes as \`/v1/options/quotes\`
returns them (up to ${STREAM_LIMITS.quoteContracts} contracts, or every contract of up to ${STREAM_LIMITS.quoteUnderlyings} underlyings), the current ones first, then
each minute's moved ones. \`gex\`: \`/v1/gex/{symbol}\`'s profile without its strikes, at once and whenever a minute changes it.
\`status\` (no filters): the session's phase (pre-open, open, closed, early close) and each feed schema's lag, at once and
every 5 s, so a quiet market can be told from a broken feed. \`quotes\`, \`gex\` and \`status\` are state: no cursor, no
\`since\`; a new subscription starts from the current values.

**WebSocket**: send \`{"type":"subscribe","id":"a","channel":"flow","filters":{"tickers":"SPY,QQQ","minPremium":50000}}\`
(\`StreamClientMessage\`); the stream answers \`subscribed\`, then \`flow\` messages (\`StreamServerMessage\`). Acknowledge data
messages as you read them, \`{"type":"ack","seq":n}\`: at most ${STREAM_LIMITS.maxBufferedBytes} bytes may be unacknowledged.
A bad message gets an \`error\` message with the REST error code and the field; the stream stays open.

**SSE**: one subscription from the query string (\`channel\`, \`id\`, \`since\` and the filters); each message is an event named
by its type, and a \`flow\` event's id is its cursor, so \`Last-Event-ID\` resumes. Unread bytes count against the same bound.

**Resume**: every \`flow\` and \`netflow\` message carries a signed \`cursor\`; subscribe with \`since\` (or SSE's \`Last-Event-ID\`) and the
stream delivers everything after it, from the database then live, with no gap and no duplicate, anywhere in the 7-day retention
(older: \`out_of_range\`). Heartbeats (at least every ${STREAM_LIMITS.heartbeatMs / 1000} s) carry each subscription's cursor.

**Close codes**: ${Object.entries(CLOSE_CODES)
  .map(([name, code]) => `${code} ${CLOSE_MEANINGS[name as keyof typeof CLOSE_CODES]}`)
  .join("; ")}. Deploys cut every socket: reconnect and resume.`;

/** SSE's filter parameters: every channel's, each name once, saying which channels take it and what it means in each. */
function filterParameters(): { name: string; description: string; schema: JsonSchema }[] {
  const byName = new Map<string, { channel: string; description: string; schema: JsonSchema }[]>();
  for (const [channel, query] of Object.entries(CHANNEL_FILTERS)) {
    const { properties = {} } = jsonSchema(query, "input") as { properties?: Record<string, JsonSchema & { description?: string }> };
    for (const [name, { description = "", ...schema }] of Object.entries(properties)) {
      byName.set(name, [...(byName.get(name) ?? []), { channel, description, schema }]);
    }
  }
  return [...byName].map(([name, uses]) => {
    const meanings = new Map<string, string[]>();
    for (const u of uses) meanings.set(u.description, [...(meanings.get(u.description) ?? []), `\`${u.channel}\``]);
    const schemas = [...new Set(uses.map((u) => JSON.stringify(u.schema)))].map((text) => JSON.parse(text) as JsonSchema);
    return {
      name,
      description: `SSE. ${[...meanings].map(([meaning, channels]) => `${channels.join(", ")}: ${meaning}`).join(" ")}`,
      schema: schemas.length === 1 ? schemas[0]! : { anyOf: schemas },
    };
  });
}

/** `GET /v1/stream` in the API description: not a route spec (it answers 101 or an event stream), described here from the same types. */
export function streamOperation(): JsonSchema {
  return {
    operationId: "openStream",
    summary: "Push stream (WebSocket or SSE)",
    description: DESCRIPTION,
    tags: ["Streams"],
    parameters: [
      { name: "channel", in: "query", required: false, description: "SSE: the channel.", schema: { enum: [...CHANNELS] } },
      { name: "id", in: "query", required: false, description: "SSE: the subscription's id (default `sse`).", schema: { type: "string" } },
      { name: "since", in: "query", required: false, description: "SSE: a cursor to resume after.", schema: { type: "string" } },
      ...filterParameters().map((parameter) => ({ ...parameter, in: "query", required: false })),
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
        ["invalid_parameter", "missing_symbol", "too_many_symbols", "invalid_range", "out_of_range", "credentials_in_query"],
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
