import type { Context, Hono } from "hono";
import type { AppEnv } from "../app-env";
import { meter } from "../access/admit";
import { authenticate } from "../access/authenticate";
import { ApiError } from "../http/errors";
import { rateHeaders } from "../http/limit-headers";
import { STREAM_LIMITS } from "./limits";
import { SubscribeMessageSchema, type SubscribeMessage } from "./messages";
import { planSubscription } from "./subscription";
import type { StreamCaller } from "./stream-hub";

export const STREAM_PATH = "/v1/stream";

/** SSE's one subscription, from the query string (the channel, its REST twin's filters, `id`, `since`) or `Last-Event-ID`. */
function sseSubscription(c: Context<AppEnv>): SubscribeMessage {
  const { channel, id, since, ...filters } = c.req.query();
  const parsed = SubscribeMessageSchema.safeParse({
    type: "subscribe",
    id: id ?? "sse",
    channel,
    filters,
    since: since ?? c.req.header("Last-Event-ID") ?? undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "channel");
    throw new ApiError("invalid_parameter", `Invalid query parameter '${field}': ${issue?.message ?? "invalid"}.`);
  }
  return parsed.data;
}

/**
 * `GET /v1/stream`: authenticated as any data route (the key in `Authorization` only), opening
 * counted as one request against the per-minute limit, no in-flight slot taken; then handed to the
 * account's hub, which holds the stream. SSE's subscription is checked here first, so a bad filter
 * is the REST route's 400 rather than a stream that ends at once.
 */
export function mountStream(app: Hono<AppEnv>): void {
  app.get(STREAM_PATH, async (c) => {
    const upgrade = c.req.header("Upgrade")?.toLowerCase() === "websocket";
    const sse = !upgrade && /\btext\/event-stream\b/i.test(c.req.header("Accept") ?? "");
    const identity = await authenticate(c);
    if (!upgrade && !sse) {
      throw new ApiError(
        "upgrade_required",
        "Open /v1/stream as a WebSocket (Upgrade: websocket) or as Server-Sent Events (Accept: text/event-stream).",
        { headers: { Upgrade: "websocket" } },
      );
    }
    const subscribe = sse ? sseSubscription(c) : null;
    const metered = await meter(c, identity, 1);
    if (subscribe) {
      await planSubscription(
        subscribe,
        { accountId: identity.accountId, plan: metered.entitlement.plan },
        c.var.config.CURSOR_SECRET,
        Date.now(),
      );
    }
    const caller: StreamCaller = { accountId: identity.accountId, keyId: identity.keyId };
    const headers = new Headers({ "X-Stream-Caller": JSON.stringify(caller) });
    if (upgrade) headers.set("Upgrade", "websocket");
    if (subscribe) headers.set("X-Stream-Subscribe", JSON.stringify(subscribe));
    const hub = c.env.STREAM_HUB.getByName(String(identity.accountId));
    const res = await hub.fetch(new Request(c.req.url, { headers }));
    if (res.status === 429) {
      throw new ApiError(
        "too_many_streams",
        `This account already holds ${STREAM_LIMITS.streamsPerAccount} open streams; close one before opening another.`,
        { headers: rateHeaders(metered.rate) },
      );
    }
    // The hub's answer has immutable headers; the middleware adds its own on the way out.
    if (upgrade) return new Response(null, { status: 101, webSocket: res.webSocket, headers: rateHeaders(metered.rate) });
    const streamed = new Response(res.body, res);
    for (const [name, value] of Object.entries(rateHeaders(metered.rate))) streamed.headers.set(name, value);
    streamed.headers.set("Cache-Control", "private, no-store");
    return streamed;
  });
  app.on(["POST", "PUT", "PATCH", "DELETE"], STREAM_PATH, () => {
    throw new ApiError("method_not_allowed", "Only GET opens a stream; allowed: GET, HEAD.", { headers: { Allow: "GET, HEAD" } });
  });
}
