import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAccount } from "../support/accounts";
import { floodPrints, arrangePrints } from "../support/flow-fixture";
import { retainedSessions } from "../support/flow-sessions";
import { openStream } from "../support/stream-client";
import { admin, bodyOf } from "../support/accounts";
import { call } from "../support/worker";
import { CLOSE_CODES, STREAM_LIMITS } from "../../src/streams/limits";
import type { ServerMessage } from "../../src/streams/messages";

let session: string;
let asOf: string;
/** About 1.2 windows of JSON (some 420 bytes a print): enough to pass an unacknowledged window. */
const FLOOD = 12_000;
/** An acknowledging reader needs no more than a window's worth to show it is never cut. */
const READ = 6_000;
/** SSE's bound is met later: the response's own pipes hold some of what is unread. */
const SSE_FLOOD = 20_000;

beforeAll(async () => {
  ({ newest: session, asOf } = await retainedSessions());
});
// The floods leave the shared market database as they found it.
afterAll(async () => {
  for (const ticker of ["LAGWS", "ACKWS", "LAGSSE"]) await arrangePrints(ticker, []);
});

const volumesOf = (messages: ServerMessage[]) => messages.flatMap((m) => (m.type === "flow" ? m.prints.map((p) => p.volume) : []));
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("slow consumers", () => {
  it(`a WebSocket client that acknowledges nothing gets 'lagged' past ${STREAM_LIMITS.maxBufferedBytes} bytes and close 4408; its cursors resume exactly`, async () => {
    const ticker = "LAGWS";
    await arrangePrints(ticker, []);
    const { keys } = await newAccount();
    const silent = await openStream(keys[0]!.key);
    silent.send({ type: "subscribe", id: "s", channel: "flow", filters: { ticker, minPremium: 1_000 } });
    await silent.next("subscribed");
    await floodPrints(ticker, session, asOf, FLOOD);
    bodyOf(await admin.wakeStreams());
    const lagged = await silent.next("lagged", () => true, 20_000);
    expect((await silent.closed).code).toBe(CLOSE_CODES.lagged);
    const received = volumesOf(silent.messages);
    expect(received).toEqual(numbered(1, received.length));
    expect(received.length).toBeLessThan(FLOOD);
    // What was sent unacknowledged stayed within the window and one message.
    const sentBytes = silent.messages.filter((m) => m.type === "flow").reduce((n, m) => n + JSON.stringify(m).length, 0);
    expect(sentBytes).toBeLessThanOrEqual(STREAM_LIMITS.maxBufferedBytes + 400_000);

    const reader = await openStream(keys[0]!.key, {}, { ack: true });
    reader.send({ type: "subscribe", id: "s", channel: "flow", filters: { ticker, minPremium: 1_000 }, since: lagged.cursors.s });
    while (volumesOf(reader.messages).length < FLOOD - received.length) await reader.next("flow", () => true, 20_000);
    expect([...received, ...volumesOf(reader.messages)]).toEqual(numbered(1, FLOOD));
    reader.socket.close(1000);
  });

  it("a WebSocket client that acknowledges as it reads gets the whole flood", async () => {
    const ticker = "ACKWS";
    await arrangePrints(ticker, []);
    const { keys } = await newAccount();
    const stream = await openStream(keys[0]!.key, {}, { ack: true });
    stream.send({ type: "subscribe", id: "a", channel: "flow", filters: { ticker, minPremium: 1_000 } });
    await stream.next("subscribed");
    await floodPrints(ticker, session, asOf, READ);
    bodyOf(await admin.wakeStreams());
    while (volumesOf(stream.messages).length < READ) await stream.next("flow", () => true, 20_000);
    expect(volumesOf(stream.messages)).toEqual(numbered(1, READ));
    expect(stream.messages.some((m) => m.type === "lagged")).toBe(false);
    stream.socket.close(1000);
  });

  it("an SSE client that reads nothing gets 'lagged' and the end of its stream once its unread bytes pass the bound", async () => {
    const ticker = "LAGSSE";
    await arrangePrints(ticker, []);
    const { keys } = await newAccount();
    const res = await call(`/v1/stream?channel=flow&id=s&ticker=${ticker}&minPremium=1000`, {
      headers: { Authorization: `Bearer ${keys[0]!.key}`, Accept: "text/event-stream" },
    });
    expect(res.status).toBe(200);
    await floodPrints(ticker, session, asOf, SSE_FLOOD);
    bodyOf(await admin.wakeStreams());
    // Nothing is read for a while: the hub's writes stay pending.
    await new Promise((r) => setTimeout(r, 3_000));
    const text = await res.text();
    const events = text
      .split("\n\n")
      .filter((e) => e.includes("data: "))
      .map((e) => JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as ServerMessage);
    expect(events.some((m) => m.type === "lagged")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "closing", code: CLOSE_CODES.lagged });
    const received = volumesOf(events);
    expect(received).toEqual(numbered(1, received.length));
    expect(received.length).toBeLessThan(SSE_FLOOD);
  });
});
