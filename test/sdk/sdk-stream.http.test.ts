import { beforeAll, describe, expect, it } from "vitest";
import { createClient, OdsStreamError } from "../../sdk/src/index";
import { newHttpAccount, adminOfSharedWorker, sharedWorker } from "../support/http-accounts";
import { insertPrints, nodeMarketSql } from "../support/node-market-sql";
import { bodyOf } from "../../ingest/admin-api/admin-api";

/** The platform WebSocket, each instance kept so a test can cut the connection under the client. */
function recordingWebSocket() {
  const sockets: WebSocket[] = [];
  class Recorded extends WebSocket {
    constructor(url: string, init: { headers: Record<string, string> }) {
      super(url, init as never);
      sockets.push(this);
    }
  }
  return { sockets, WebSocket: Recorded };
}

const wake = async () => bodyOf(await adminOfSharedWorker().wakeStreams());
const numbered = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** One account for the file: each new key costs a lookup of the per-client budget every system test shares. */
let key: string;
beforeAll(async () => {
  key = (await newHttpAccount()).key;
});

describe("ods.stream against wrangler dev", () => {
  it(
    "iterates the flow channel, reconnects after the connection is cut and resumes: no print lost, none repeated",
    { timeout: 90_000 },
    async () => {
      const ticker = "SDKX";
      await nodeMarketSql().query("delete from flow_prints where ticker = $1", [ticker]);
      const ods = createClient({ baseUrl: sharedWorker().url, apiKey: key });
      const { sockets, WebSocket } = recordingWebSocket();
      const flow = ods.stream.flow({ ticker, minPremium: 1_000 }, { WebSocket });
      const volumes: number[] = [];
      let cut = false;
      const first = (async () => {
        // The subscription exists once the first socket has said so; then the first wave.
        while (flow.cursor === undefined) await new Promise((r) => setTimeout(r, 20));
        await insertPrints(ticker, 1_500);
        await wake();
      })();
      for await (const batch of flow) {
        volumes.push(...batch.prints.map((p) => p.volume));
        expect(batch.cursor).toBe(flow.cursor);
        if (!cut && volumes.length >= 500) {
          cut = true;
          // The network drops mid-stream; more prints commit while the client is away.
          sockets[0]!.close(3000, "cut by the test");
          await insertPrints(ticker, 1_500, 1_501);
          await wake();
        }
        if (volumes.length >= 3_000) break;
      }
      await first;
      expect(volumes).toEqual(numbered(3_000));
      expect(flow.reconnects).toBeGreaterThanOrEqual(1);
      expect(sockets.length).toBeGreaterThanOrEqual(2);
    },
  );

  it(
    "iterates netflow: the session's series, then the minutes new prints moved, as getNetFlow computes them",
    { timeout: 60_000 },
    async () => {
      const ticker = "SDKN";
      await nodeMarketSql().query("delete from flow_prints where ticker = $1", [ticker]);
      await insertPrints(ticker, 100);
      const ods = createClient({ baseUrl: sharedWorker().url, apiKey: key });
      const netflow = ods.stream.netflow({ symbol: ticker, minPremium: 1_000 });
      const held = new Map<string, unknown>();
      let inserted = false;
      for await (const message of netflow) {
        for (const p of message.points) held.set(p.t, p);
        if (!inserted) {
          inserted = true;
          await insertPrints(ticker, 100, 101);
          await wake();
        }
        const last = [...held.values()].at(-1) as { netVolume: number } | undefined;
        if (last?.netVolume === 200 * 30) break;
      }
      const rest = await ods.getNetFlow({ symbol: ticker, minPremium: 1_000 });
      expect([...held.values()]).toEqual(rest.data.points);
    },
  );

  it("ends the iteration with the API's error for a bad filter", async () => {
    const ods = createClient({ baseUrl: sharedWorker().url, apiKey: key });
    const flow = ods.stream.flow({ minPremium: "lots" });
    const failure = await (async () => {
      try {
        for await (const _ of flow) return null;
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(failure).toBeInstanceOf(OdsStreamError);
    expect((failure as OdsStreamError).code).toBe("invalid_parameter");
    expect((failure as OdsStreamError).message).toMatch(/minPremium/);
  });
});
