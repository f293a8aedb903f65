import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountIdOf, admin, bodyOf, newAccount } from "../support/accounts";
import { appendPrints, arrangePrints, floodPrints, type FixturePrint } from "../support/flow-fixture";
import { retainedSessions } from "../support/flow-sessions";
import { openStream } from "../support/stream-client";
import { call, expectError, testEnv } from "../support/worker";
import {
  FlowMessageSchema,
  GexMessageSchema,
  NetflowMessageSchema,
  QuotesMessageSchema,
  StatusMessageSchema,
} from "../../src/streams/messages";
import { BUMP_SCOPES_SQL } from "../../ingest/db/versions";
import { addDays, createTestUnderlying, etToday, marketSql } from "../support/market-db";
import { sessionStatus } from "../../src/streams/session-status";
import { flowBucketShard } from "../../src/streams/shard-rule";
import { CLOSE_CODES, STREAM_LIMITS } from "../../src/streams/limits";

let session: string;
let asOf: string;

/** Premium 3,100 and up: under `/v1/flow`'s default floor, so the flow tests' default answers never count them. */
const print = (ticker: string, n: number, extra: Partial<FixturePrint> = {}): FixturePrint => ({
  ticker,
  sessionDate: session,
  executedAt: new Date(Date.parse(asOf) - 60_000 + n).toISOString(),
  price: 1,
  size: 30 + n,
  ...extra,
});

/** The shards read the feed now (as the ingestor's wake-up after a commit). */
const wake = async () => bodyOf(await admin.wakeStreams());

beforeAll(async () => {
  ({ newest: session, asOf } = await retainedSessions());
});

describe("GET /v1/stream: opening", () => {
  it("answers the REST codes before any upgrade: no key 401, a bad key 401, no upgrade 426", async () => {
    await expectError(await call("/v1/stream", { headers: { Upgrade: "websocket" } }), 401, "missing_api_key");
    await expectError(
      await call("/v1/stream", { headers: { Upgrade: "websocket", Authorization: "Bearer nope" } }),
      401,
      "invalid_api_key",
    );
    const { keys } = await newAccount();
    const res = await call("/v1/stream", { headers: { Authorization: `Bearer ${keys[0]!.key}` } });
    await expectError(res, 426, "upgrade_required");
    expect(res.headers.get("Upgrade")).toBe("websocket");
  });

  it("refuses an account without a subscription with its entitlement code", async () => {
    const { keys } = await newAccount({ status: "canceled" });
    await expectError(
      await call("/v1/stream", { headers: { Upgrade: "websocket", Authorization: `Bearer ${keys[0]!.key}` } }),
      403,
      "subscription_inactive",
    );
  });

  it(`holds at most ${STREAM_LIMITS.streamsPerAccount} streams an account: the next is 429 too_many_streams`, async () => {
    const { keys } = await newAccount();
    const key = keys[0]!.key;
    const open = [];
    for (let i = 0; i < STREAM_LIMITS.streamsPerAccount; i++) open.push(await openStream(key));
    for (const s of open) await s.next("welcome");
    const refused = await call("/v1/stream", { headers: { Upgrade: "websocket", Authorization: `Bearer ${key}` } });
    await expectError(refused, 429, "too_many_streams");
    expect(refused.headers.get("X-RateLimit-Limit")).not.toBeNull();
    const usage = (await (await call("/v1/usage", { headers: { Authorization: `Bearer ${key}` } })).json()) as { streams: object };
    expect(usage.streams).toEqual({
      open: STREAM_LIMITS.streamsPerAccount,
      max: STREAM_LIMITS.streamsPerAccount,
      subscriptions_per_stream: 10,
    });
    open[0]!.socket.close(1000, "done");
    await open[0]!.closed;
    await expect
      .poll(async () => (await call("/v1/stream", { headers: { Upgrade: "websocket", Authorization: `Bearer ${key}` } })).status)
      .toBe(101);
  });
});

describe("GET /v1/stream: the flow channel", () => {
  it("delivers new prints of the subscribed tickers, filtered as /v1/flow filters, in feed order", async () => {
    await arrangePrints("STRMA", []);
    await arrangePrints("STRMB", []);
    const { keys } = await newAccount();
    const stream = await openStream(keys[0]!.key);
    stream.send({ type: "subscribe", id: "a", channel: "flow", filters: { tickers: "STRMA", minPremium: 3_000, type: "call" } });
    const subscribed = await stream.next("subscribed", (m) => m.id === "a");
    expect(subscribed.cursor).toMatch(/\./);
    await appendPrints([
      print("STRMA", 1),
      print("STRMB", 2),
      print("STRMA", 3, { optionType: "put" }),
      print("STRMA", 4, { price: 0.5 }),
      print("STRMA", 5),
    ]);
    await wake();
    const got = [];
    while (got.length < 2) got.push(...(await stream.next("flow", (m) => m.id === "a")).prints);
    expect(got.map((p) => [p.ticker, p.size, p.optionType])).toEqual([
      ["STRMA", 31, "call"],
      ["STRMA", 35, "call"],
    ]);
    for (const m of stream.messages.filter((m) => m.type === "flow")) FlowMessageSchema.parse(m);
    stream.socket.close(1000);
  });

  it("answers bad input with an error message naming the field, and the stream stays open", async () => {
    const { keys } = await newAccount();
    const stream = await openStream(keys[0]!.key);
    stream.send({ type: "subscribe", id: "x", channel: "flow", filters: { minPremium: "lots" } });
    expect((await stream.next("error")).message).toMatch(/'minPremium'/);
    stream.send({ type: "subscribe", id: "y", channel: "flow", filters: { side: "sideways" } });
    expect((await stream.next("error")).message).toMatch(/'side'/);
    stream.send({ type: "subscribe", id: "z", channel: "flow", filters: { colour: "red" } });
    expect((await stream.next("error")).message).toMatch(/'colour'/);
    stream.send({ type: "subscribe", id: "w", channel: "weather" });
    expect((await stream.next("error")).message).toMatch(/'channel'/);
    stream.socket.send("{not json");
    expect((await stream.next("error")).error).toBe("invalid_body");
    stream.send({ type: "subscribe", id: "v", channel: "flow", since: "forged.cursor" });
    expect((await stream.next("error")).message).toMatch(/'since'/);
    stream.send({ type: "ping" });
    await stream.next("pong");
    stream.socket.close(1000);
  });

  it("resumes from a cursor with exactly the prints after it: none lost, none repeated", async () => {
    await arrangePrints("STRMC", []);
    const { keys } = await newAccount();
    const first = await openStream(keys[0]!.key);
    first.send({ type: "subscribe", id: "c", channel: "flow", filters: { ticker: "STRMC", minPremium: 1_000 } });
    await first.next("subscribed");
    await appendPrints([print("STRMC", 1), print("STRMC", 2)]);
    await wake();
    const seen = [];
    let cursor = "";
    while (seen.length < 2) {
      const m = await first.next("flow");
      seen.push(...m.prints.map((p) => p.size));
      cursor = m.cursor;
    }
    first.socket.close(1000);
    await first.closed;
    // Written while nobody listens.
    await appendPrints([print("STRMC", 3), print("STRMC", 4), print("STRMC", 5)]);
    const second = await openStream(keys[0]!.key);
    second.send({ type: "subscribe", id: "c", channel: "flow", filters: { ticker: "STRMC", minPremium: 1_000 }, since: cursor });
    await second.next("subscribed");
    await appendPrints([print("STRMC", 6)]);
    await wake();
    const resumed = [];
    while (resumed.length < 4) resumed.push(...(await second.next("flow")).prints.map((p) => p.size));
    expect([...seen, ...resumed]).toEqual([31, 32, 33, 34, 35, 36]);
    second.socket.close(1000);
  });

  it("resumes exactly while the feed moves during its catch-up: batches reaching the hub as it registers start no second reader", async () => {
    const ticker = "STRMR";
    await arrangePrints(ticker, []);
    const { keys } = await newAccount();
    const first = await openStream(keys[0]!.key);
    first.send({ type: "subscribe", id: "r", channel: "flow", filters: { ticker, minPremium: 1_000 } });
    const { cursor } = await first.next("subscribed");
    first.socket.close(1000);
    await first.closed;
    // Written while nobody listens: three pages of catch-up.
    await floodPrints(ticker, session, asOf, 2_500);
    const second = await openStream(keys[0]!.key, {}, { ack: true });
    const moving = (async () => {
      for (let i = 0; i < 40; i++) {
        await appendPrints([print(ticker, i)]);
        await wake();
      }
    })();
    second.send({ type: "subscribe", id: "r", channel: "flow", filters: { ticker, minPremium: 1_000 }, since: cursor });
    await moving;
    await wake();
    const got: string[] = [];
    while (got.length < 2_540) got.push(...(await second.next("flow")).prints.map((p) => `${p.executedAt}|${p.volume}|${p.size}`));
    await expect(second.next("flow", () => true, 2_000)).rejects.toThrow(/no 'flow' message/);
    expect(new Set(got).size).toBe(2_540);
    second.socket.close(1000);
  });

  it("delivers exactly across the hub's evictions: with its socket hibernated, and cutting the socket (a deploy) then resumed", async () => {
    const ticker = "STRME";
    await arrangePrints(ticker, []);
    const account = await newAccount();
    const key = account.keys[0]!.key;
    const hub = testEnv.STREAM_HUB.getByName(String(await accountIdOf(account)));
    const sizes = async (stream: Awaited<ReturnType<typeof openStream>>, n: number) => {
      const got: number[] = [];
      while (got.length < n) got.push(...(await stream.next("flow")).prints.map((p) => p.size));
      return got;
    };
    const first = await openStream(key);
    first.send({ type: "subscribe", id: "e", channel: "flow", filters: { ticker, minPremium: 1_000 } });
    await first.next("subscribed");
    await appendPrints([print(ticker, 1)]);
    await wake();
    const seen = await sizes(first, 1);
    await appendPrints([print(ticker, 2)]);
    await wake();
    seen.push(...(await sizes(first, 1)));
    await evictDurableObject(hub);
    await appendPrints([print(ticker, 3)]);
    await wake();
    seen.push(...(await sizes(first, 1)));
    const cursor = [...first.messages].reverse().find((m) => m.type === "flow")!;
    await evictDurableObject(hub, { webSockets: "close" });
    await first.closed;
    await appendPrints([print(ticker, 4)]);
    const second = await openStream(key);
    second.send({
      type: "subscribe",
      id: "e",
      channel: "flow",
      filters: { ticker, minPremium: 1_000 },
      since: (cursor as { cursor: string }).cursor,
    });
    await second.next("subscribed");
    await appendPrints([print(ticker, 5)]);
    await wake();
    seen.push(...(await sizes(second, 2)));
    expect(seen).toEqual([31, 32, 33, 34, 35]);
    second.socket.close(1000);
  });

  it("a shard forgets a subscription its hub no longer holds (a hub gone without unsubscribing), at the next batch", async () => {
    const ticker = "STRMG";
    await arrangePrints(ticker, []);
    const account = await newAccount();
    const hub = String(await accountIdOf(account));
    const stream = await openStream(account.keys[0]!.key);
    stream.send({ type: "subscribe", id: "g", channel: "flow", filters: { ticker, minPremium: 1_000 } });
    await stream.next("subscribed");
    const name = flowBucketShard(ticker);
    const shard = testEnv.STREAM_SHARD.getByName(name);
    // A subscription the hub never had: what a shard is left with when a hub loses one without telling it.
    await shard.subscribe(name, hub, "ghost:g", { tickers: [ticker], minPremium: 1_000 });
    const interests = () =>
      runInDurableObject(
        shard,
        async (_instance, state) => (await state.storage.get<Record<string, Record<string, unknown>>>("interests"))?.[hub],
      );
    expect(Object.keys((await interests()) ?? {}).sort()).toEqual([expect.stringMatching(/:g$/), "ghost:g"].sort());
    await appendPrints([print(ticker, 1)]);
    await wake();
    await stream.next("flow");
    await expect.poll(async () => Object.keys((await interests()) ?? {})).not.toContain("ghost:g");
    expect(Object.keys((await interests()) ?? {})).toHaveLength(1);
    stream.socket.close(1000);
  });

  it("netflow: the session's series first, then the minutes each batch moved, equal to /v1/flow/net's; resumed from a cursor exactly", async () => {
    const ticker = "STRMN";
    const base = Math.floor(Date.parse(asOf) / 60_000) * 60_000 - 10 * 60_000;
    const at = (minute: number, ms: number, extra: Partial<FixturePrint>): FixturePrint => ({
      ticker,
      sessionDate: session,
      executedAt: new Date(base + minute * 60_000 + ms).toISOString(),
      price: 1,
      size: 20,
      ...extra,
    });
    await arrangePrints(ticker, [
      at(0, 1_000, { side: "ask" }),
      at(0, 2_000, { side: "bid", optionType: "put", size: 15 }),
      at(1, 1_000, { side: "ask", printClass: "complex" }),
      at(1, 2_000, { side: "bid", price: 0.2 }),
    ]);
    const rest = async () => {
      const res = await call(`/v1/flow/net?symbol=${ticker}&minPremium=1000`, { headers: { Authorization: `Bearer ${keys[0]!.key}` } });
      return ((await res.json()) as { points: { t: string }[] }).points;
    };
    /** What a client holds: each point replaced by the newest one of its minute. */
    const held = new Map<string, unknown>();
    const take = (m: { points: { t: string }[] }) => m.points.forEach((p) => held.set(p.t, p));
    const { keys } = await newAccount();
    const first = await openStream(keys[0]!.key);
    first.send({ type: "subscribe", id: "n", channel: "netflow", filters: { symbol: ticker, minPremium: 1_000 } });
    await first.next("subscribed");
    const snapshot = await first.next("netflow");
    NetflowMessageSchema.parse(snapshot);
    expect(snapshot).toMatchObject({ ticker, session });
    expect(snapshot.points).toEqual(await rest());
    expect(snapshot.points).toHaveLength(2);
    take(snapshot);
    // A new minute, then a late print of the first minute: every point from it on moves.
    await appendPrints([at(2, 1_000, { side: "ask", size: 40 })]);
    await wake();
    const moved = await first.next("netflow");
    expect(moved.points.map((p) => p.t)).toEqual([new Date(base + 2 * 60_000).toISOString()]);
    take(moved);
    await appendPrints([at(0, 3_000, { side: "ask", optionType: "put", size: 50 })]);
    await wake();
    const late = await first.next("netflow");
    expect(late.points).toHaveLength(3);
    take(late);
    expect([...held.values()]).toEqual(await rest());
    first.socket.close(1000);
    await first.closed;
    // Written while nobody listens, then more live: the resumed subscription counts each print once.
    await appendPrints([at(3, 1_000, { side: "bid", size: 25 }), at(3, 2_000, { side: "ask", size: 5 })]);
    const second = await openStream(keys[0]!.key);
    second.send({ type: "subscribe", id: "n", channel: "netflow", filters: { symbol: ticker, minPremium: 1_000 }, since: late.cursor });
    await second.next("subscribed");
    await appendPrints([at(4, 1_000, { side: "ask", optionType: "put" })]);
    await wake();
    const four = new Date(base + 4 * 60_000).toISOString();
    while (!held.has(four)) take(await second.next("netflow"));
    expect([...held.values()].sort((a, b) => ((a as { t: string }).t < (b as { t: string }).t ? -1 : 1))).toEqual(await rest());
    second.socket.close(1000);
  });

  it("netflow: its REST twin's errors, naming the field", async () => {
    const { keys } = await newAccount();
    const stream = await openStream(keys[0]!.key);
    stream.send({ type: "subscribe", id: "a", channel: "netflow", filters: { minPremium: 5 } });
    expect(await stream.next("error")).toMatchObject({ id: "a", error: "missing_symbol" });
    stream.send({ type: "subscribe", id: "b", channel: "netflow", filters: { symbol: "SPY", side: "ask" } });
    expect((await stream.next("error")).message).toMatch(/'side': not a filter of netflow/);
    stream.send({ type: "subscribe", id: "c", channel: "netflow", filters: { symbol: "not a ticker!" } });
    expect((await stream.next("error")).message).toMatch(/'symbol'/);
    stream.socket.close(1000);
  });

  it("status: the current report at once (the session's phase by the calendar, each feed's lag as /ready has it), no cursor, no filters", async () => {
    const { keys } = await newAccount();
    const stream = await openStream(keys[0]!.key);
    stream.send({ type: "subscribe", id: "st", channel: "status", filters: { ticker: "SPY" } });
    expect((await stream.next("error")).message).toMatch(/'ticker'.*takes none/);
    stream.send({ type: "subscribe", id: "st", channel: "status" });
    const subscribed = await stream.next("subscribed", (m) => m.id === "st");
    expect(subscribed.cursor).toBeUndefined();
    const report = await stream.next("status");
    StatusMessageSchema.parse(report);
    expect(report.session).toEqual(sessionStatus(new Date(report.time)));
    const ready = (await (await call("/ready")).json()) as { feeds: { feed: string; schema: string; position: string }[] };
    expect(report.feeds.map(({ feed, schema, position }) => ({ feed, schema, position }))).toEqual(
      ready.feeds.map(({ feed, schema, position }) => ({ feed, schema, position })),
    );
    stream.socket.close(1000);
  });

  it("closes the streams of a revoked key within a heartbeat, with close code 4401", { timeout: 30_000 }, async () => {
    const account = await newAccount();
    const stream = await openStream(account.keys[0]!.key);
    await stream.next("welcome");
    bodyOf(await admin.revokeKey(account.keys[0]!.id));
    const closed = await stream.closed;
    expect(closed.code).toBe(CLOSE_CODES.invalid_api_key);
  });
});

describe("GET /v1/stream: the state channels (quotes, gex)", () => {
  const expiration = () => addDays(etToday(), 30);
  const occ = (symbol: string, side: "C" | "P", strike: number) =>
    `${symbol}${expiration().slice(2).replaceAll("-", "")}${side}${String(strike * 1000).padStart(8, "0")}`;
  /** A minute of quotes as the ingestor applies it: new values with a newer `as_of`, then the underlying's scope bumped. */
  let minutes = 0;
  const applyMinute = async (symbol: string, set: string, contracts: string[]) => {
    const minute = new Date(Date.now() + 60_000 * ++minutes).toISOString();
    await marketSql().query(`update option_quotes set ${set}, as_of = $2::timestamptz where option_symbol = any($1::text[])`, [
      contracts,
      minute,
    ]);
    await marketSql().query(BUMP_SCOPES_SQL, [[symbol], minute]);
  };

  it("quotes: the current quotes as /v1/options/quotes returns them (with what is missing), then each minute's moved contracts only", async () => {
    await createTestUnderlying("STRQ", 100, [expiration()], [95, 100, 105]);
    const { keys } = await newAccount();
    const auth = { headers: { Authorization: `Bearer ${keys[0]!.key}` } };
    const wanted = [occ("STRQ", "C", 100), occ("STRQ", "P", 95)];
    const absent = occ("STRQ", "C", 999);
    const stream = await openStream(keys[0]!.key, {}, { ack: true });
    stream.send({ type: "subscribe", id: "q", channel: "quotes", filters: { symbols: [...wanted, absent].join(",") } });
    const subscribed = await stream.next("subscribed");
    expect(subscribed.cursor).toBeUndefined();
    const first = await stream.next("quotes", (m) => m.id === "q");
    QuotesMessageSchema.parse(first);
    const rest = (await (await call(`/v1/options/quotes?symbols=${wanted.join(",")}`, auth)).json()) as {
      quotes: { optionSymbol: string }[];
    };
    const bySymbol = (qs: { optionSymbol: string }[]) => [...qs].sort((a, b) => a.optionSymbol.localeCompare(b.optionSymbol));
    expect(bySymbol(first.quotes)).toEqual(bySymbol(rest.quotes));
    expect(first.missing).toEqual([absent]);
    // One subscribed contract and one other move: only the subscribed one is sent.
    await applyMinute("STRQ", "bid = 2.5, ask = 2.7", [wanted[0]!, occ("STRQ", "C", 105)]);
    const moved = await stream.next("quotes", (m) => m.id === "q");
    expect(moved.quotes.map((q) => [q.optionSymbol, q.bid, q.ask])).toEqual([[wanted[0], 2.5, 2.7]]);
    expect(moved.missing).toBeUndefined();
    // A whole underlying: every contract at once, then what moves.
    stream.send({ type: "subscribe", id: "all", channel: "quotes", filters: { underlyings: "STRQ" } });
    expect((await stream.next("quotes", (m) => m.id === "all")).quotes).toHaveLength(6);
    await applyMinute("STRQ", "bid = 3.1", [occ("STRQ", "P", 105)]);
    expect((await stream.next("quotes", (m) => m.id === "all")).quotes.map((q) => [q.optionSymbol, q.bid])).toEqual([
      [occ("STRQ", "P", 105), 3.1],
    ]);
    stream.socket.close(1000);
  });

  it("gex: the summary /v1/gex/{symbol} computes, then a new one when a minute changes it, and none when a minute changes nothing", async () => {
    await createTestUnderlying("STRX", 100, [expiration()], [90, 100, 110]);
    // Dealers long the calls, short the puts: three times the calls' open interest is positive gamma.
    await marketSql().query(
      "update option_quotes set iv = 0.3, open_interest = case side when 'call' then 3000 else 1000 end where underlying = 'STRX'",
    );
    const { keys } = await newAccount();
    const rest = (await (await call("/v1/gex/STRX", { headers: { Authorization: `Bearer ${keys[0]!.key}` } })).json()) as Record<
      string,
      unknown
    >;
    const stream = await openStream(keys[0]!.key, {}, { ack: true });
    stream.send({ type: "subscribe", id: "g", channel: "gex", filters: { symbol: "STRX" } });
    await stream.next("subscribed");
    const first = await stream.next("gex");
    GexMessageSchema.parse(first);
    // Every figure as REST's; `asOf` is the snapshot's time, which other files' writes may move between the two reads.
    const { strikes: _s, disclaimer: _d, asOf, ...summary } = rest;
    expect(first).toEqual({ type: "gex", id: "g", seq: first.seq, asOf: first.asOf, ...summary });
    expect(Date.parse(first.asOf!)).toBeGreaterThanOrEqual(Date.parse(asOf as string));
    expect(first.regime).toBe("positive");
    // Puts' open interest swells: dealer gamma turns negative.
    await applyMinute("STRX", "open_interest = 50000", [occ("STRX", "P", 90), occ("STRX", "P", 100), occ("STRX", "P", 110)]);
    const moved = await stream.next("gex");
    expect(moved.regime).toBe("negative");
    expect(moved.netGex).toBeLessThan(0);
    // A minute that leaves the profile as it was: nothing is sent.
    await applyMinute("STRX", "bid = bid", [occ("STRX", "C", 100)]);
    await expect(stream.next("gex", () => true, 5_000)).rejects.toThrow(/no 'gex' message/);
    stream.socket.close(1000);
  });

  it("SSE: a bad subscription of any channel is its REST twin's 400, as the description lists", async () => {
    const { keys } = await newAccount();
    const sse = (query: string) =>
      call(`/v1/stream?${query}`, { headers: { Authorization: `Bearer ${keys[0]!.key}`, Accept: "text/event-stream" } });
    await expectError(await sse("channel=netflow&minPremium=5"), 400, "missing_symbol");
    await expectError(await sse("channel=quotes"), 400, "missing_symbol");
    await expectError(await sse("channel=gex&symbol=SPY&minDte=30&maxDte=10"), 400, "invalid_range");
    await expectError(await sse("channel=quotes&underlyings=SPY&side=ask"), 400, "invalid_parameter");
  });

  it("quotes and gex: their REST twins' errors, naming the field; no resuming from a cursor", async () => {
    const { keys } = await newAccount();
    const stream = await openStream(keys[0]!.key);
    stream.send({ type: "subscribe", id: "a", channel: "quotes" });
    expect(await stream.next("error")).toMatchObject({ id: "a", error: "missing_symbol" });
    stream.send({ type: "subscribe", id: "b", channel: "quotes", filters: { symbols: "SPY,NOTOCC" } });
    expect(await stream.next("error")).toMatchObject({ id: "b", error: "invalid_parameter", message: expect.stringMatching(/'symbols'/) });
    const many = Array.from({ length: STREAM_LIMITS.quoteContracts + 1 }, (_, i) => occ("SPY", "C", 1 + i)).join(",");
    stream.send({ type: "subscribe", id: "c", channel: "quotes", filters: { symbols: many } });
    expect(await stream.next("error")).toMatchObject({ id: "c", error: "too_many_symbols" });
    stream.send({ type: "subscribe", id: "d", channel: "quotes", filters: { underlyings: "A,B,C,D,E,F" } });
    expect((await stream.next("error")).message).toMatch(/'underlyings': at most 5/);
    stream.send({ type: "subscribe", id: "e", channel: "gex", filters: { symbol: "NOSUCH" } });
    expect(await stream.next("error")).toMatchObject({ id: "e", error: "not_found" });
    stream.send({ type: "subscribe", id: "f", channel: "gex", filters: { symbol: "SPY", zeroDte: true, maxDte: 5 } });
    expect((await stream.next("error")).message).toMatch(/'zeroDte'/);
    stream.send({ type: "subscribe", id: "g", channel: "gex", filters: { symbol: "SPY" }, since: "x.y" });
    expect((await stream.next("error")).message).toMatch(/'since'.*state/);
    stream.send({ type: "ping" });
    await stream.next("pong");
    stream.socket.close(1000);
  });
});
