import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { listenOn } from "../../devkit/listen";
import { addDays, sessionOnOrAfter, todayInNewYork } from "../../src/domain/calendar";
import { seedMarket } from "../../devkit/generator/seed-market";
import { openBackend } from "../../ingest/db/sql-backend";
import { killDev, leftovers, startDev, stopDev, type DevRun } from "../support/dev-process";
import { signInOverHttp } from "../support/http-sign-in";

/**
 * `npm run dev` as the README runs it, always on PGlite: the command a newcomer types must come up serving data and
 * sign-in every time, whatever database it served before, and a start that fails must stop everything it started.
 * The tests run side by side (most of their time is spent waiting on a start or on the market's next minute), each
 * in a folder of its own (`DEV_DIR`: its demo key, its Worker state; no folder's path is a prefix of another's).
 */

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ods-dev-"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A test's own `DEV_DIR`, with every `npm run dev` it started killed when the test ends, whatever its outcome. */
function devRoom(name: string, { onTestFinished }: TestContext) {
  const dir = join(root, name);
  mkdirSync(dir);
  const runs: DevRun[] = [];
  onTestFinished(() => runs.forEach(killDev));
  return {
    dir,
    start: async (env: Record<string, string>, args: string[] = []) => {
      const run = await startDev(dir, env, args);
      runs.push(run);
      return run;
    },
    demoKey: () => readFileSync(join(dir, "demo-api-key"), "utf8").trim(),
    leftovers: () => leftovers(dir),
  };
}

async function seeded(dir: string, seed: number, sessionDate?: string): Promise<string> {
  const backend = await openBackend({ dataDir: dir });
  try {
    await backend.migrate("./drizzle");
    await seedMarket(backend, { size: "test", seed, sessionDate });
  } finally {
    await backend.close();
  }
  return dir;
}

const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

describe.concurrent("npm run dev", () => {
  // Two returns to each database: what a start keeps per database is found again, and nothing of the other's leaks in.
  // The demo key's life over many more starts (its cap) is tested without restarts: test/tools/demo-account.node.test.ts.
  it("comes up four times alternating between two databases, each time serving data and sign-in with that database's demo key", async (context) => {
    const room = devRoom("starts", context);
    const databases = [await seeded(join(room.dir, "market-a"), 3), await seeded(join(room.dir, "market-b"), 4)];
    const keys = new Map<string, string>();
    for (let start = 0; start < 4; start++) {
      const pglite = databases[start % 2] as string;
      const run = await room.start({ PGLITE_DIR: pglite });
      expect(run.up, run.output()).toBe(true);
      expect(run.output()).not.toMatch(/seeding/);
      const key = room.demoKey();
      // The same database keeps its one demo key: returning to it adds no key.
      expect(key, `start ${start + 1}`).toBe(keys.get(pglite) ?? key);
      keys.set(pglite, key);

      const usage = await fetch(`${run.base}/v1/usage`, bearer(key));
      expect(usage.status, `start ${start + 1}`).toBe(200);
      const flow = await fetch(`${run.base}/v1/flow?minPremium=0&limit=1`, bearer(key));
      expect(flow.status, `start ${start + 1}`).toBe(200);
      expect(((await flow.json()) as { count: number }).count).toBeGreaterThan(0);
      const session = await signInOverHttp(run.base, "demo@example.com");
      const overview = await fetch(`${run.base}/dashboard`, { headers: { Cookie: `ods_session=${session}` } });
      expect(overview.status).toBe(200);
      expect(await overview.text()).toContain("Overview");

      await stopDev(run);
      expect(await room.leftovers()).toEqual([]);
    }
    expect(new Set(keys.values()).size).toBe(2);
  }, 600_000);

  it("moves the generated market through the local gateway and the ingestor, ahead of a seed's later session; --static keeps it frozen", async (context) => {
    const room = devRoom("market", context);
    // A session a week ahead: the feed must start after everything seeded, trades to the close included, on any date.
    const pglite = await seeded(join(room.dir, "moving"), 5, sessionOnOrAfter(addDays(todayInNewYork(), 7)));
    const run = await room.start({ PGLITE_DIR: pglite });
    expect(run.up, run.output()).toBe(true);
    const key = room.demoKey();
    const read = async (base: string) => {
      const flow = (await (await fetch(`${base}/v1/flow?minPremium=0&limit=1`, bearer(key))).json()) as { asOf: string };
      const chain = (await (await fetch(`${base}/v1/chain/SPY?limit=1`, bearer(key))).json()) as { contracts: { asOf: string }[] };
      // The screener's newest row of one symbol: the same follower as `npm run ingest` rebuilds it as the minute moves.
      const screen = (await (
        await fetch(`${base}/v1/contracts/screen`, {
          method: "POST",
          headers: { ...bearer(key).headers, "Content-Type": "application/json" },
          body: JSON.stringify({ symbols: "SPY", pageSize: 1, filters: [{ field: "lastUpdatedDate", operation: "sort", value: "desc" }] }),
        })
      ).json()) as { results: { lastUpdatedDate: string }[] };
      return { flow: flow.asOf, quote: chain.contracts[0]!.asOf, screened: screen.results[0]!.lastUpdatedDate };
    };
    const before = await read(run.base);
    // The moving market also streams: the ingestor wakes the stream shards after each commit.
    const stopStreaming = new AbortController();
    const streamed: string[] = [];
    const streaming = fetch(`${run.base}/v1/stream?channel=flow&minPremium=0`, {
      headers: { ...bearer(key).headers, Accept: "text/event-stream" },
      signal: stopStreaming.signal,
    })
      .then(async (res) => {
        let text = "";
        for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
          text += chunk;
          for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
            const event = text.slice(0, end);
            text = text.slice(end + 2);
            if (!event.startsWith("event: flow")) continue;
            const data = JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as { prints: { executedAt: string }[] };
            streamed.push(...data.prints.map((p) => p.executedAt));
          }
        }
      })
      .catch(() => undefined);
    const startedAt = Date.now();
    // Trades arrive within seconds; the first minute sample at the next whole minute (the edge learns it within
    // 15 s), and the screener's rebuild of its partition within 60 s of that.
    let now = before;
    while (
      Date.now() - startedAt < 150_000 &&
      (now.flow === before.flow || now.quote === before.quote || Date.parse(now.screened) < Date.parse(now.quote))
    ) {
      await new Promise((r) => setTimeout(r, 1_000));
      now = await read(run.base);
    }
    expect(Date.parse(now.flow)).toBeGreaterThan(Date.parse(before.flow));
    stopStreaming.abort();
    await streaming;
    expect(streamed.length).toBeGreaterThan(0);
    expect(Date.parse(streamed.at(-1)!)).toBeGreaterThan(Date.parse(before.flow));
    expect(Date.parse(now.quote)).toBeGreaterThan(Date.parse(before.quote));
    expect(Date.parse(now.quote) % 60_000).toBe(0);
    expect(Date.parse(now.screened)).toBeGreaterThan(Date.parse(before.screened));
    expect(Date.parse(now.screened)).toBeGreaterThanOrEqual(Date.parse(now.quote));
    expect(run.output()).toMatch(/market feed: \d+ contracts streamed through a local Databento gateway.*min ahead of the wall clock/);
    await stopDev(run);
    expect(await room.leftovers()).toEqual([]);

    const frozen = await room.start({ PGLITE_DIR: pglite }, ["--static"]);
    expect(frozen.up, frozen.output()).toBe(true);
    // Printed after the banner `up` waits for (one more database read): on a loaded machine, a moment later.
    for (const deadline = Date.now() + 10_000; !/market frozen: --static/.test(frozen.output()) && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(frozen.output()).toMatch(/market frozen: --static/);
    const first = await read(frozen.base);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await read(frozen.base)).toEqual(first);
    await stopDev(frozen);
    expect(await room.leftovers()).toEqual([]);
  }, 300_000);

  it("replays a loaded trade file instead of seeding over it", async (context) => {
    const room = devRoom("replay", context);
    const pglite = join(room.dir, "loaded");
    // Always PGlite (an empty DATABASE_URL is unset); no running service to tell about the load.
    const env = { ...process.env, DEV_DIR: room.dir, PGLITE_DIR: pglite, DATABASE_URL: "", ADMIN_URL: "http://127.0.0.1:1" };
    const load = await promisify(execFile)(
      "npm",
      ["run", "--silent", "load", "--", "cboe-trades", "test/fixtures/cboe/VIX_2016-06-01_trades_excerpt.csv", "--json"],
      { env, encoding: "utf8" },
    );
    const loaded = JSON.parse(load.stdout) as { loaded: number; printClass: Record<string, number> };
    expect(loaded.loaded).toBe(259);

    const run = await room.start({ PGLITE_DIR: pglite, MARKET_CLOCK: "2016-06-01T16:15:00-04:00" });
    expect(run.up, run.output()).toBe(true);
    expect(run.output()).not.toMatch(/seeding/);
    const key = room.demoKey();
    const flow = await fetch(`${run.base}/v1/flow?symbol=VIX&minPremium=0&from=2016-06-01&limit=500`, bearer(key));
    expect(flow.status).toBe(200);
    const body = (await flow.json()) as { count: number; fromDate: string; prints: unknown[] };
    // Every print but the canceled one, which never happened.
    expect(body.count).toBe(loaded.loaded - (loaded.printClass.canceled ?? 0));
    expect(body.fromDate).toBe("2016-06-01");
    // Nothing was seeded: the synthetic market's names are unknown here.
    expect((await fetch(`${run.base}/v1/expirations/SPY`, bearer(key))).status).toBe(404);
    await stopDev(run);
    expect(await room.leftovers()).toEqual([]);
  }, 180_000);

  it("stops everything it started, with a clear message, when a start-up step fails", async (context) => {
    const room = devRoom("failing", context);
    const pglite = await seeded(join(room.dir, "market"), 5);
    // Someone else answers on the API's port: wrangler cannot take it, or the demo account cannot be made through it.
    const squatter = (await import("node:http")).createServer((_req, res) => res.writeHead(404).end("not us"));
    const port = await listenOn(squatter);
    try {
      const run = await room.start({ PGLITE_DIR: pglite, PORT: String(port) });
      expect(run.up).toBe(false);
      expect(await run.exited).not.toBe(0);
      expect(run.output()).toMatch(/npm run dev could not start|wrangler dev exited/);
      expect(await room.leftovers()).toEqual([]);
    } finally {
      squatter.close();
    }
  }, 180_000);
});
