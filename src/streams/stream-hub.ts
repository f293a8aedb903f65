import { DurableObject } from "cloudflare:workers";
import { workerDatabase } from "../db/worker-database";
import { configFrom, type Bindings } from "../env";
import { ApiError } from "../http/errors";
import { emptyFold, foldPrints, pointsFrom, type NetFlowFold, type NetFlowPrint } from "../analytics/net-flow-fold";
import { isoTimestamp } from "../db/timestamps";
import { netFlowMinutesQuery } from "../market/flow";
import { flowTailQuery, sessionAtQuery } from "../market/flow-tail";
import type { KeyStanding } from "../limits/admission";
import { AckWindow, type Connection, SseConnection, socketConnection, type SocketAttachment } from "./connection";
import { CLOSE_CODES, STREAM_LIMITS } from "./limits";
import { ClientMessageSchema, type GexSummary, type ServerMessage, type StatusReport, type SubscribeMessage } from "./messages";
import { tickersOnShard } from "./shard-rule";
import type { ShardBatch } from "./stream-shard";
import { gexKey, wantsQuote, type MarketBatch, type MarketInterest } from "./market-shard";
import type { OptionQuote } from "../routes/quotes-and-options/option-contract";
import { signStreamCursor } from "./stream-cursor";
import { clientPrint, feedPrint, planSubscription, selects, type FeedChannel, type FeedPrint, type SubscriptionPlan } from "./subscription";

/** Who opened a stream, as the Worker's route hands it over after authenticating and metering it. */
export interface StreamCaller {
  accountId: number;
  keyId: number;
}

type WithoutResume<T> = T extends unknown ? Omit<T, "resume"> : never;

/** A subscription as the hub keeps it: its plan and how far each of its shards has delivered it (`flow`; a state channel has no positions). */
type HubSubscription = WithoutResume<SubscriptionPlan> & {
  conn: string;
  /** How far each shard's batches have been applied (frames decided, perhaps not yet sent). */
  positions: Record<string, number>;
  /** How far what was sent reaches: the cursor of a heartbeat or a `lagged` message. */
  delivered: Record<string, number>;
  /** `netflow`: the session's minutes summed so far. */
  fold?: NetFlowFold;
};
type FeedSubscription = Extract<HubSubscription, { channel: FeedChannel }>;
type MarketSubscription = Extract<HubSubscription, { channel: "quotes" | "gex" }>;
const isFeed = (sub: HubSubscription): sub is FeedSubscription => sub.channel === "flow" || sub.channel === "netflow";

const subKey = (conn: string, id: string) => `${conn}:${id}`;
const STORED = "sub:";

/**
 * An account's streams (one object per account, `getByName(accountId)`): it holds their WebSockets
 * through the hibernation API (and their SSE responses while they last), registers their
 * subscriptions at the shards, and turns the shards' batches into frames. The account's stream cap
 * is the count of what it holds. What survives hibernation or eviction is in storage: the sockets'
 * attachments and every subscription with its positions; a batch that finds a gap (a shard
 * restarted, a call was lost) is filled from Postgres before anything newer is sent.
 */
export class StreamHub extends DurableObject<Bindings> {
  #accountId: number | null = null;
  #subs = new Map<string, HubSubscription>();
  /** Subscription key + shard → the position a catch-up from Postgres is reading to. */
  #catching = new Map<string, number>();
  #sse = new Map<string, { conn: SseConnection; keyId: number }>();
  /** Per WebSocket, what its client has not acknowledged (memory only: a hibernated hub had nothing in flight). */
  #windows = new Map<string, AckWindow>();
  /** Subscriptions being registered at their shards: held, though not yet in `#subs`. */
  #registering = new Set<string>();
  /** Per connection, the frames in the order they were decided (cursor signing is asynchronous). */
  #chains = new Map<string, Promise<void>>();

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
    void ctx.blockConcurrencyWhile(async () => {
      this.#accountId = (await ctx.storage.get<number>("account")) ?? null;
      const live = new Set(ctx.getWebSockets().map((ws) => (ws.deserializeAttachment() as SocketAttachment).id));
      const stored = await ctx.storage.list<HubSubscription>({ prefix: STORED });
      for (const [key, sub] of stored) {
        if (live.has(sub.conn)) this.#subs.set(subKey(sub.conn, sub.id), sub);
        // An SSE stream ends with the instance that served it: its subscriptions go too.
        else await this.#forget(key.slice(STORED.length), sub);
      }
    });
  }

  /** Opens a stream: a WebSocket upgrade, or SSE with its one subscription. 429 when the account holds its cap. */
  override async fetch(request: Request): Promise<Response> {
    const caller = JSON.parse(request.headers.get("X-Stream-Caller") ?? "null") as StreamCaller;
    if (this.#accountId !== caller.accountId) {
      this.#accountId = caller.accountId;
      await this.ctx.storage.put("account", caller.accountId);
    }
    if (this.openStreams() >= STREAM_LIMITS.streamsPerAccount) {
      return Response.json({ refused: "too_many_streams" }, { status: 429 });
    }
    const id = crypto.randomUUID();
    await this.#armHeartbeat();
    const welcome: ServerMessage = {
      type: "welcome",
      stream: id,
      heartbeatMs: STREAM_LIMITS.heartbeatMs,
      maxSubscriptions: STREAM_LIMITS.subscriptionsPerStream,
    };
    if (request.headers.get("Upgrade")?.toLowerCase() === "websocket") {
      const { 0: client, 1: server } = new WebSocketPair();
      this.ctx.acceptWebSocket(server, [id]);
      server.serializeAttachment({ id, keyId: caller.keyId } satisfies SocketAttachment);
      server.send(JSON.stringify(welcome));
      return new Response(null, { status: 101, webSocket: client });
    }
    const conn = new SseConnection(id, () => void this.#drop(id));
    this.#sse.set(id, { conn, keyId: caller.keyId });
    conn.send(welcome);
    const subscribe = JSON.parse(request.headers.get("X-Stream-Subscribe") ?? "null") as SubscribeMessage;
    await this.#subscribe(conn, caller.keyId, subscribe);
    // Refused after the route's checks (the per-minute limit reached meanwhile): the error event, then the end.
    if (![...this.#subs.values()].some((s) => s.conn === id)) conn.close(1008, "not_subscribed");
    return conn.response;
  }

  override async webSocketMessage(ws: WebSocket, data: string | ArrayBuffer): Promise<void> {
    const conn = this.#socket(ws);
    const { keyId } = ws.deserializeAttachment() as SocketAttachment;
    const text = typeof data === "string" ? data : null;
    if (text === null || text.length > STREAM_LIMITS.maxMessageBytes) {
      return conn.send({
        type: "error",
        error: "invalid_body",
        message: `Send JSON text messages of at most ${STREAM_LIMITS.maxMessageBytes} bytes.`,
      });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return conn.send({ type: "error", error: "invalid_body", message: "The message could not be parsed as JSON." });
    }
    const parsed = ClientMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join(".") || "type";
      return conn.send({
        type: "error",
        error: "invalid_body",
        message: `Invalid message field '${field}': ${issue?.message ?? "invalid"}.`,
      });
    }
    const message = parsed.data;
    if (message.type === "ping") return conn.send({ type: "pong" });
    if (message.type === "ack") return this.#windows.get(conn.id)?.ack(message.seq);
    if (message.type === "subscribe") return this.#subscribe(conn, keyId, message);
    const sub = this.#subs.get(subKey(conn.id, message.id));
    if (!sub)
      return conn.send({ type: "error", id: message.id, error: "not_found", message: `No subscription '${message.id}' on this stream.` });
    await this.#unsubscribe(sub);
    conn.send({ type: "unsubscribed", id: message.id });
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    // Completes the closing handshake (the client waits for it) and frees the stream's place at once.
    this.#socket(ws).close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    await this.#drop(this.#socket(ws).id);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.#drop(this.#socket(ws).id);
  }

  /**
   * A shard's batch: each subscription it concerns moves on, or reads its gap from Postgres first.
   * Returns the keys of the subscriptions this hub still holds on that shard, so the shard forgets
   * any it lost (a hub that went away without unsubscribing).
   */
  deliver(batch: ShardBatch): string[] {
    const held = [...this.#registering];
    for (const sub of this.#subs.values()) {
      if (!isFeed(sub) || !(batch.shard in sub.positions)) continue;
      held.push(subKey(sub.conn, sub.id));
      this.#apply(sub, batch);
    }
    return held;
  }

  /** A status shard's report: every `status` subscription gets it. Returns the keys of those this hub holds. */
  deliverStatus(report: StatusReport): string[] {
    const held = [...this.#registering];
    for (const sub of this.#subs.values()) {
      if (sub.channel !== "status") continue;
      held.push(subKey(sub.conn, sub.id));
      this.#enqueue(sub.conn, async () => this.#connection(sub.conn)?.send({ type: "status", id: sub.id, ...report }));
    }
    return held;
  }

  /**
   * A market shard's minute: each `quotes` subscription gets the quotes of its contracts, each `gex`
   * one its summary when it changed. Returns the keys of the subscriptions this hub holds on that shard.
   */
  deliverMarket(batch: MarketBatch): string[] {
    const held = [...this.#registering];
    for (const sub of this.#subs.values()) {
      if (sub.channel !== "quotes" && sub.channel !== "gex") continue;
      const interest = sub.interests[batch.shard];
      if (!interest) continue;
      held.push(subKey(sub.conn, sub.id));
      if (interest.kind === "quotes")
        this.#sendQuotes(
          sub,
          batch.quotes.filter((q) => wantsQuote(interest, q)),
        );
      else {
        const summary = batch.gex[gexKey(interest.symbol, interest.window)];
        if (summary) this.#sendData(sub, null, (seq) => ({ type: "gex", id: sub.id, seq, ...summary }));
      }
    }
    return held;
  }

  /** Open streams, for `/v1/usage`. */
  openStreams(): number {
    return this.#sockets().length + this.#sse.size;
  }

  /** The open sockets (one closing is no longer a stream). */
  #sockets(): WebSocket[] {
    return this.ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN);
  }

  /** Every heartbeat: the cursors of each subscription, and the keys checked (a revoked key or lapsed account closes its streams). */
  override async alarm(): Promise<void> {
    const conns = this.#connections();
    if (conns.length === 0) return;
    const standings = new Map<number, Promise<KeyStanding | null>>();
    for (const { keyId } of conns) {
      if (!standings.has(keyId)) standings.set(keyId, this.#standing(keyId));
    }
    for (const { conn, keyId } of conns) {
      const standing = await standings.get(keyId);
      if (standing && standing.kind !== "active") {
        const [code, reason] =
          standing.kind === "not_entitled"
            ? [CLOSE_CODES.not_entitled, standing.entitlement.reason || "subscription_required"]
            : [CLOSE_CODES.invalid_api_key, "invalid_api_key"];
        conn.close(code, reason);
        await this.#drop(conn.id);
        continue;
      }
      this.#enqueue(conn.id, async () => {
        conn.send({ type: "heartbeat", time: new Date().toISOString(), cursors: await this.#cursorsOf(conn.id) });
      });
    }
    await this.#armHeartbeat(true);
  }

  async #standing(keyId: number): Promise<KeyStanding | null> {
    const accountId = this.#accountId as number;
    try {
      return await this.env.ACCOUNT_LIMITER.getByName(String(accountId)).standing({ accountId, keyId });
    } catch {
      // The account's object unreachable for a moment: keep the streams, ask again at the next heartbeat.
      return null;
    }
  }

  async #armHeartbeat(force = false): Promise<void> {
    if (force || (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + STREAM_LIMITS.heartbeatMs);
  }

  #connections(): { conn: Connection; keyId: number }[] {
    const sockets = this.#sockets().map((ws) => ({
      conn: this.#socket(ws),
      keyId: (ws.deserializeAttachment() as SocketAttachment).keyId,
    }));
    return [...sockets, ...this.#sse.values()];
  }

  #socket(ws: WebSocket): Connection {
    const { id } = ws.deserializeAttachment() as SocketAttachment;
    let window = this.#windows.get(id);
    if (!window) this.#windows.set(id, (window = new AckWindow()));
    return socketConnection(ws, window);
  }

  #connection(id: string): Connection | null {
    const sse = this.#sse.get(id);
    if (sse) return sse.conn;
    const ws = this.ctx.getWebSockets(id).find((w) => w.readyState === WebSocket.OPEN);
    return ws ? this.#socket(ws) : null;
  }

  async #subscribe(conn: Connection, keyId: number, message: SubscribeMessage): Promise<void> {
    const accountId = this.#accountId as number;
    const mine = [...this.#subs.values()].filter((s) => s.conn === conn.id);
    const refuse = (error: "invalid_parameter" | "rate_limited" | "conflict", text: string) =>
      conn.send({ type: "error", id: message.id, error, message: text });
    if (mine.some((s) => s.id === message.id)) return refuse("conflict", `Subscription '${message.id}' already exists on this stream.`);
    if (mine.length >= STREAM_LIMITS.subscriptionsPerStream) {
      return refuse("invalid_parameter", `At most ${STREAM_LIMITS.subscriptionsPerStream} subscriptions per stream.`);
    }
    const metered = await this.env.ACCOUNT_LIMITER.getByName(String(accountId)).meter({ accountId, keyId, cost: 1 });
    if (metered.kind === "rate_limited") {
      return refuse(
        "rate_limited",
        `Per-minute request limit reached for this account; subscribe again in ${metered.retryAfterSeconds} s.`,
      );
    }
    if (metered.kind !== "metered") {
      const code = metered.kind === "not_entitled" ? CLOSE_CODES.not_entitled : CLOSE_CODES.invalid_api_key;
      conn.close(code, metered.kind === "not_entitled" ? metered.entitlement.reason || "subscription_required" : "invalid_api_key");
      return this.#drop(conn.id);
    }
    let plan: SubscriptionPlan;
    try {
      plan = await planSubscription(message, { accountId, plan: metered.entitlement.plan }, configFrom(this.env).CURSOR_SECRET, Date.now());
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return conn.send({ type: "error", id: message.id, error: err.code, message: err.message });
    }
    const key = subKey(conn.id, plan.id);
    this.#registering.add(key);
    try {
      if (plan.channel === "status") await this.#subscribeStatus(conn, key, plan);
      else if ("interests" in plan) await this.#subscribeMarket(conn, key, plan);
      else await this.#subscribeFeed(conn, key, plan);
    } finally {
      this.#registering.delete(key);
    }
  }

  /** A `status` subscription: registered at its shard, then `subscribed` and the current report. */
  async #subscribeStatus(conn: Connection, key: string, plan: Extract<SubscriptionPlan, { channel: "status" }>): Promise<void> {
    const shard = plan.shards[0] as string;
    const report = await this.env.STATUS_SHARD.getByName(shard).subscribe(String(this.#accountId), key);
    const sub: HubSubscription = { conn: conn.id, id: plan.id, channel: "status", shards: plan.shards, positions: {}, delivered: {} };
    this.#subs.set(key, sub);
    await this.#store(sub);
    this.#enqueue(conn.id, async () => {
      conn.send({ type: "subscribed", id: plan.id, channel: "status" });
      conn.send({ type: "status", id: plan.id, ...report });
    });
  }

  /**
   * A `quotes` or `gex` subscription: registered at each of its shards, which answer with the
   * current values; then `subscribed` and those values. An unknown GEX symbol is the REST 404.
   */
  async #subscribeMarket(conn: Connection, key: string, plan: Extract<SubscriptionPlan, { channel: "quotes" | "gex" }>): Promise<void> {
    const sub: MarketSubscription = {
      conn: conn.id,
      id: plan.id,
      channel: plan.channel,
      shards: plan.shards,
      interests: plan.interests,
      positions: {},
      delivered: {},
    };
    const quotes: OptionQuote[] = [];
    let summary: GexSummary | null = null;
    for (const shard of plan.shards) {
      const state = await this.env.MARKET_SHARD.getByName(shard).subscribe(
        shard,
        String(this.#accountId),
        key,
        plan.interests[shard] as MarketInterest,
      );
      if ("quotes" in state) quotes.push(...state.quotes);
      else if (state.gex === null) {
        return conn.send({
          type: "error",
          id: plan.id,
          error: "not_found",
          message: `Unknown symbol '${(plan.interests[shard] as { symbol: string }).symbol}'.`,
        });
      } else summary = state.gex;
    }
    this.#subs.set(key, sub);
    await this.#store(sub);
    this.#enqueue(conn.id, async () => conn.send({ type: "subscribed", id: plan.id, channel: plan.channel }));
    if (summary) {
      const current = summary;
      return this.#sendData(sub, null, (seq) => ({ type: "gex", id: sub.id, seq, ...current }));
    }
    const found = new Set(quotes.map((q) => q.optionSymbol));
    const missing = (plan.requested ?? []).filter(([canonical]) => !found.has(canonical)).map(([, sent]) => sent);
    this.#sendQuotes(sub, quotes, missing);
  }

  /** Quotes in messages of at most `quotesPerFrame`; the first message of a subscription also names what was not found. */
  #sendQuotes(sub: MarketSubscription, quotes: OptionQuote[], missing?: string[]): void {
    const parts = chunks(quotes, STREAM_LIMITS.quotesPerFrame);
    if (parts.length === 0 && missing !== undefined) parts.push([]);
    parts.forEach((part, i) => {
      this.#sendData(sub, null, (seq) => ({ type: "quotes", id: sub.id, seq, quotes: part, ...(i === 0 && missing ? { missing } : {}) }));
    });
  }

  /**
   * A `flow` or `netflow` subscription: registered at each of its shards, from its cursor or live;
   * what it missed is read from Postgres. Net flow starts from the session's sums at that position
   * (and, live, sends them first).
   */
  async #subscribeFeed(conn: Connection, key: string, plan: Extract<SubscriptionPlan, { channel: FeedChannel }>): Promise<void> {
    const accountId = this.#accountId as number;
    const sub: FeedSubscription = {
      conn: conn.id,
      id: plan.id,
      channel: plan.channel,
      selection: plan.selection,
      shards: plan.shards,
      positions: {},
      delivered: {},
    };
    const live: Record<string, number> = {};
    for (const shard of plan.shards) {
      const tickers = plan.selection.tickers.length === 0 ? null : tickersOnShard(shard, plan.selection.tickers);
      const { position } = await this.#shard(shard).subscribe(shard, String(accountId), key, {
        tickers,
        minPremium: plan.selection.minPremium,
      });
      live[shard] = position;
      sub.positions[shard] = Math.min(plan.resume?.[shard] ?? position, position);
    }
    sub.delivered = { ...sub.positions };
    if (plan.channel === "netflow") sub.fold = await this.#netFlowAt(plan.selection, sub.positions);
    // From here to the catch-ups, nothing awaits: a batch arriving meanwhile finds the subscription and its readers as they are.
    this.#subs.set(key, sub);
    const positions = { ...sub.positions };
    this.#enqueue(conn.id, async () => {
      conn.send({ type: "subscribed", id: plan.id, channel: plan.channel, cursor: await this.#sign(positions) });
    });
    if (plan.channel === "netflow" && plan.resume === null && sub.fold?.session) {
      this.#sendData(sub, positions, (seq, cursor) => this.#netflowMessage(sub, seq, cursor, sub.fold as NetFlowFold, -Infinity));
    }
    for (const shard of plan.shards) {
      if ((sub.positions[shard] as number) < (live[shard] as number)) this.#catchUp(sub, shard, live[shard] as number);
    }
    await this.#store(sub);
  }

  #shard(name: string) {
    return this.env.STREAM_SHARD.getByName(name);
  }

  /** A net flow subscription's sums at a feed position: its session's minutes through that print. */
  async #netFlowAt(selection: FeedSubscription["selection"], positions: Record<string, number>): Promise<NetFlowFold> {
    const db = workerDatabase(this.env, "market");
    const position = Math.min(...Object.values(positions));
    const [at] = await sessionAtQuery(db, position);
    if (!at) return emptyFold();
    const session = { date: at.session };
    const minutes = await netFlowMinutesQuery(db, selection.tickers[0] as string, session, session, selection.minPremium, position);
    return { session: at.session, minutes: minutes.map((m) => ({ ...m, minute: Date.parse(isoTimestamp(m.minute)) })) };
  }

  /** One batch for one subscription: duplicates dropped, a gap read from Postgres first, the rest sent as one frame. */
  #apply(sub: FeedSubscription, batch: ShardBatch): void {
    const key = `${subKey(sub.conn, sub.id)}|${batch.shard}`;
    const catching = this.#catching.get(key);
    if (catching !== undefined) {
      this.#catching.set(key, Math.max(catching, batch.through));
      return;
    }
    const position = sub.positions[batch.shard] as number;
    if (position >= batch.through) return;
    if (position < batch.after) return this.#catchUp(sub, batch.shard, batch.through);
    const prints = batch.prints.filter((p) => p.id > position && p.id <= batch.through && selects(sub.selection, p));
    sub.positions[batch.shard] = batch.through;
    this.#frame(sub, batch.shard, prints);
    void this.#store(sub);
  }

  /** Reads a subscription's prints on one shard from its position to `target` (which batches arriving meanwhile move on), then it is live. */
  #catchUp(sub: FeedSubscription, shard: string, target: number): void {
    const key = `${subKey(sub.conn, sub.id)}|${shard}`;
    // One reader per subscription and shard: a second (a batch reached the hub while it registered) would send its range twice.
    const running = this.#catching.get(key);
    if (running !== undefined) {
      this.#catching.set(key, Math.max(running, target));
      return;
    }
    this.#catching.set(key, target);
    const db = workerDatabase(this.env, "market");
    const tickers = sub.selection.tickers.length === 0 ? null : tickersOnShard(shard, sub.selection.tickers);
    const run = async () => {
      for (;;) {
        const through = this.#catching.get(key);
        const after = sub.positions[shard] as number;
        if (through === undefined || this.#subs.get(subKey(sub.conn, sub.id)) !== sub) return;
        if (after >= through) {
          this.#catching.delete(key);
          return;
        }
        const rows = await flowTailQuery(db, { after, through }, { ...sub.selection, tickers }, STREAM_LIMITS.catchUpPage);
        if (this.#subs.get(subKey(sub.conn, sub.id)) !== sub) return;
        sub.positions[shard] = rows.length === STREAM_LIMITS.catchUpPage ? (rows.at(-1)?.id as number) : through;
        this.#frame(sub, shard, rows.map(feedPrint));
        void this.#store(sub);
      }
    };
    run().catch((err: unknown) => {
      this.#catching.delete(key);
      console.warn(
        JSON.stringify({ level: "warn", event: "stream_catch_up_failed", reason: err instanceof Error ? err.message : "unknown" }),
      );
      // Postgres away: the client resumes from its last cursor when it can; nothing sent was wrong, nothing is skipped.
      this.#connection(sub.conn)?.close(CLOSE_CODES.restarting, "service_unavailable");
      void this.#drop(sub.conn);
    });
  }

  /**
   * Queues the frames of one batch of a shard (`flow`: at most `printsPerFrame` prints each;
   * `netflow`: the points the prints moved, per session), each cursor resuming after its own last
   * print, or, with no print, the move of the subscription's delivered position.
   */
  #frame(sub: FeedSubscription, shard: string, prints: FeedPrint[]): void {
    const positions = { ...sub.positions };
    if (prints.length === 0) {
      this.#enqueue(sub.conn, async () => void (sub.delivered = positions));
      return;
    }
    const parts = sub.channel === "flow" ? chunks(prints, STREAM_LIMITS.printsPerFrame) : bySession(prints);
    parts.forEach((part, i) => {
      // A part's cursor stands at its own last print, so resuming from it repeats nothing and skips nothing.
      const at = i === parts.length - 1 ? positions : { ...positions, [shard]: part.at(-1)!.id };
      if (sub.channel === "flow") {
        this.#sendData(sub, at, (seq, cursor) => ({ type: "flow", id: sub.id, seq, cursor, prints: part.map(clientPrint) }));
        return;
      }
      const { fold, touched } = foldPrints(sub.fold ?? emptyFold(), part.map(netFlowPrint));
      sub.fold = fold;
      if (touched !== null) this.#sendData(sub, at, (seq, cursor) => this.#netflowMessage(sub, seq, cursor, fold, touched));
    });
  }

  #netflowMessage(sub: FeedSubscription, seq: number, cursor: string, fold: NetFlowFold, from: number): ServerMessage {
    return {
      type: "netflow",
      id: sub.id,
      seq,
      cursor,
      ticker: sub.selection.tickers[0] as string,
      session: fold.session as string,
      points: pointsFrom(fold, from).map((p) => ({ ...p, t: new Date(p.t).toISOString() })),
    };
  }

  /**
   * Queues one data message, its cursor at `at`. A client that has not taken `maxBufferedBytes`
   * yet gets `lagged` instead, and its stream closes.
   */
  #sendData(sub: HubSubscription, at: Record<string, number> | null, build: (seq: number, cursor: string) => ServerMessage): void {
    this.#enqueue(sub.conn, async () => {
      const conn = this.#connection(sub.conn);
      if (!conn) return;
      if (conn.buffered() > STREAM_LIMITS.maxBufferedBytes) return this.#lag(conn);
      if (at === null) return conn.send(build(conn.nextSeq(), ""));
      const cursor = await this.#sign(at);
      conn.send(build(conn.nextSeq(), cursor), cursor);
      sub.delivered = at;
    });
  }

  async #lag(conn: Connection): Promise<void> {
    conn.send({
      type: "lagged",
      message: `More than ${STREAM_LIMITS.maxBufferedBytes} bytes were waiting for this client: resume each subscription from its cursor on a new stream.`,
      cursors: await this.#cursorsOf(conn.id),
    });
    conn.close(CLOSE_CODES.lagged, "lagged");
    await this.#drop(conn.id);
  }

  #enqueue(conn: string, task: () => Promise<void>): void {
    const next = (this.#chains.get(conn) ?? Promise.resolve()).then(task).catch((err: unknown) => {
      console.warn(JSON.stringify({ level: "warn", event: "stream_send_failed", reason: err instanceof Error ? err.message : "unknown" }));
    });
    this.#chains.set(conn, next);
  }

  /** Each subscription's cursor as far as what was sent reaches (called in the connection's chain, after every frame before it). */
  async #cursorsOf(conn: string): Promise<Record<string, string>> {
    const subs = [...this.#subs.values()].filter((s) => s.conn === conn && isFeed(s));
    return Object.fromEntries(await Promise.all(subs.map(async (s) => [s.id, await this.#sign({ ...s.delivered })])));
  }

  #sign(positions: Record<string, number>): Promise<string> {
    return signStreamCursor(configFrom(this.env).CURSOR_SECRET, { positions, issuedAt: Date.now() });
  }

  #store(sub: HubSubscription): Promise<void> {
    return this.ctx.storage.put(STORED + subKey(sub.conn, sub.id), sub);
  }

  async #unsubscribe(sub: HubSubscription): Promise<void> {
    const key = subKey(sub.conn, sub.id);
    this.#subs.delete(key);
    await this.#forget(key, sub);
  }

  async #forget(key: string, sub: HubSubscription): Promise<void> {
    await this.ctx.storage.delete(STORED + key);
    for (const shard of sub.shards) {
      this.#catching.delete(`${key}|${shard}`);
      const stub =
        sub.channel === "status"
          ? this.env.STATUS_SHARD.getByName(shard)
          : sub.channel === "quotes" || sub.channel === "gex"
            ? this.env.MARKET_SHARD.getByName(shard)
            : this.#shard(shard);
      await stub.unsubscribe(String(this.#accountId), key).catch(() => undefined);
    }
  }

  async #drop(conn: string): Promise<void> {
    this.#sse.delete(conn);
    this.#chains.delete(conn);
    this.#windows.delete(conn);
    for (const sub of [...this.#subs.values()]) if (sub.conn === conn) await this.#unsubscribe(sub);
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** Prints split where the session changes (a catch-up page may span a session's roll). */
function bySession(prints: FeedPrint[]): FeedPrint[][] {
  const out: FeedPrint[][] = [];
  for (const p of prints) {
    const last = out.at(-1);
    if (last && last[0]?.session === p.session) last.push(p);
    else out.push([p]);
  }
  return out;
}

function netFlowPrint(p: FeedPrint): NetFlowPrint {
  return {
    executedAt: Date.parse(p.executedAt),
    session: p.session,
    optionType: p.optionType,
    side: p.side,
    premium: p.premium,
    size: p.size,
    regular: p.printClass === "regular",
  };
}
