import { beforeAll, describe, expect, it } from "vitest";
import { adminOfSharedWorker, newHttpAccount, sharedWorker } from "../support/http-accounts";
import { insertPrints, nodeMarketSql } from "../support/node-market-sql";
import { bodyOf } from "../../ingest/admin-api/admin-api";
import type { ServerMessage } from "../../src/streams/messages";

const wake = async () => bodyOf(await adminOfSharedWorker().wakeStreams());

/** Every print a platform WebSocket receives for one subscription until `until` holds, with the last cursor. */
async function collect(
  key: string,
  subscribe: object,
  until: (volumes: number[]) => boolean,
  onSubscribed: () => Promise<void>,
  timeoutMs = 60_000,
) {
  const ws = new WebSocket(`${sharedWorker().url.replace(/^http/, "ws")}/v1/stream`, {
    headers: { Authorization: `Bearer ${key}` },
  } as never);
  const volumes: number[] = [];
  let cursor = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stopped at ${volumes.length} prints`)), timeoutMs);
    ws.addEventListener("open", () => ws.send(JSON.stringify(subscribe)));
    ws.addEventListener("message", (event) => {
      const m = JSON.parse(String(event.data)) as ServerMessage;
      if (m.type === "error") reject(new Error(m.message));
      if (m.type === "subscribed") onSubscribed().catch(reject);
      if (m.type !== "flow") return;
      ws.send(JSON.stringify({ type: "ack", seq: m.seq }));
      volumes.push(...m.prints.map((p) => p.volume));
      cursor = m.cursor;
      if (until(volumes)) {
        clearTimeout(timer);
        resolve();
      }
    });
    ws.addEventListener("error", () => reject(new Error("socket error")));
  });
  ws.close(1000);
  return { volumes, cursor };
}

/** One account for the file: each new key costs a lookup of the per-client budget every system test shares. */
let key: string;
beforeAll(async () => {
  key = (await newHttpAccount()).key;
});

describe("/v1/stream against wrangler dev", () => {
  it(
    "streams over the platform WebSocket client: subscribe, prints as they commit, acknowledged as read",
    { timeout: 60_000 },
    async () => {
      const ticker = "NODEWS";
      await nodeMarketSql().query("delete from flow_prints where ticker = $1", [ticker]);
      const subscribe = { type: "subscribe", id: "n", channel: "flow", filters: { ticker, minPremium: 1_000 } };
      const { volumes } = await collect(
        key,
        subscribe,
        (v) => v.length >= 1_200,
        async () => {
          await insertPrints(ticker, 1_200);
          await wake();
        },
      );
      expect(volumes).toEqual(Array.from({ length: 1_200 }, (_, i) => i + 1));
    },
  );

  it("streams SSE over fetch: events named by type, the cursor as the event id, Last-Event-ID resumes", { timeout: 60_000 }, async () => {
    const ticker = "SSEX";
    await nodeMarketSql().query("delete from flow_prints where ticker = $1", [ticker]);
    const read = async (headers: Record<string, string>, want: number) => {
      const controller = new AbortController();
      const res = await fetch(`${sharedWorker().url}/v1/stream?channel=flow&ticker=${ticker}&minPremium=1000`, {
        headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream", ...headers },
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
      expect(res.headers.get("X-RateLimit-Limit")).toBe("300");
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      const volumes: number[] = [];
      let lastId = "";
      const subscribed = { seen: false };
      while (volumes.length < want) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
        let end: number;
        while ((end = text.indexOf("\n\n")) >= 0) {
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          const name = /^event: (.*)$/m.exec(event)?.[1];
          const id = /^id: (.*)$/m.exec(event)?.[1];
          const data = JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as ServerMessage;
          expect(data.type).toBe(name);
          if (data.type === "subscribed") subscribed.seen = true;
          if (data.type === "flow") {
            expect(id).toBe(data.cursor);
            lastId = id!;
            volumes.push(...data.prints.map((p) => p.volume));
          }
        }
        if (subscribed.seen && volumes.length === 0 && want > 0 && !("inserted" in subscribed)) {
          Object.assign(subscribed, { inserted: true });
          await insertPrints(ticker, 3, volumes.length + 1 + (headers["Last-Event-ID"] ? 3 : 0));
          await wake();
        }
      }
      controller.abort();
      return { volumes, lastId };
    };
    const first = await read({}, 3);
    expect(first.volumes).toEqual([1, 2, 3]);
    const second = await read({ "Last-Event-ID": first.lastId }, 3);
    expect(second.volumes).toEqual([4, 5, 6]);
  });

  it("refuses a bad SSE filter with the REST route's 400, before any stream", async () => {
    const res = await fetch(`${sharedWorker().url}/v1/stream?channel=flow&minPremium=lots`, {
      headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string; message: string }).message).toMatch(/minPremium/);
  });
});
