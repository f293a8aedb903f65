import { generateAdminToken } from "../../src/domain/admin-token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../ingest/admin-api/admin-client";
import { startWorker, waitUntilUp, type WorkerProcess } from "../../devkit/worker-process";
import { DISTANT_RTT_MS, endpointTrips } from "../support/distant-endpoint";
import { testSqlPassword } from "../support/sql-password";

/**
 * The edge caches under `wrangler dev`, for what only a real server shows: every request in a
 * request context of its own, and bodies as encoded on the wire.
 */
const TOKEN = generateAdminToken();
/** The test database behind an endpoint DISTANT_RTT_MS away: a cold computation stays in flight while others miss it too. */
const SQL_PORT = Number(process.env.TEST_DISTANT_SQL_PORT);

let worker: WorkerProcess;
let key: string;

/** SQL requests for the market database that reached the distant endpoint. */
const marketTrips = () => endpointTrips(SQL_PORT, "market");

beforeAll(async () => {
  worker = await startWorker({
    sqlPort: SQL_PORT,
    sqlPassword: testSqlPassword(),
    vars: { ADMIN_TOKEN: TOKEN },
    quiet: true,
  });
  await waitUntilUp(`${worker.url}/health`, 90_000);
  const admin = new AdminClient(worker.url, TOKEN);
  const name = `edge-http-${Date.now().toString(36)}`;
  const created = await admin.createAccount({ name, status: "active", plan: "basic" });
  const issued = created.ok ? await admin.createKey(name) : undefined;
  if (!issued?.ok) throw new Error("could not create the test account");
  key = issued.body.key;
}, 120_000);

afterAll(() => worker?.stop());

const api = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${worker.url}${path}`, { headers: { Authorization: `Bearer ${key}`, ...headers } });

describe("the edge caches over HTTP (wrangler dev)", () => {
  it("answers every one of concurrent misses of a new value, each in its own request context, from one database round trip", async () => {
    // Warm the snapshot version and the key first, so the rounds below count only the value.
    expect((await api("/v1/expirations/SPY")).status).toBe(200);
    // A second request arriving at any moment of the first one's life: while it reads, as it stores, as it ends.
    for (let offset = 0; offset <= 2 * DISTANT_RTT_MS; offset += 2) {
      const fresh = `/v1/chain/SPY?maxDte=90&strikeMin=${offset}.${Date.now()}`;
      const before = await marketTrips();
      const first = api(fresh);
      await new Promise((resolve) => setTimeout(resolve, offset));
      const answers = await Promise.all([first, api(fresh)]);
      expect(
        answers.map((r) => r.status),
        `second request ${offset} ms later`,
      ).toEqual([200, 200]);
      expect(new Set(await Promise.all(answers.map((r) => r.text()))).size).toBe(1);
      expect((await marketTrips()) - before).toBe(1);
    }
  }, 60_000);

  it("sends a large warm body as its stored gzip bytes, encoded once, and the same JSON unencoded to a client that takes no gzip", async () => {
    const path = "/v1/chain/SPY?maxDte=60&limit=100";
    const gzipped = await api(path, { "Accept-Encoding": "gzip" });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("vary")).toBe("Accept-Encoding");
    const text = await gzipped.text();
    expect(JSON.parse(text).contracts).toHaveLength(100);
    const plain = await api(path, { "Accept-Encoding": "identity" });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(text);
  });
});
