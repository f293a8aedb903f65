import { testSqlPassword } from "../support/sql-password";
import { request } from "node:http";
import { neon, neonConfig } from "@neondatabase/serverless";
import { beforeAll, describe, expect, it } from "vitest";
import { DISTANT_RTT_MS, endpointTrips } from "../support/distant-endpoint";

/**
 * The local endpoint started by the global setup, spoken to by the production driver. Runs on
 * PGlite by default and on the PostgreSQL server when TEST_DATABASE_URL is set.
 */
const port = Number(process.env.TEST_SQL_PORT);
const url = `postgresql://app:${testSqlPassword()}@127.0.0.1:${port}/market`;
const sql = neon(url);

/** A raw protocol request, with the connection string the driver would send. */
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${port}/sql`, { method: "POST", headers: { "Neon-Connection-String": url, ...headers }, body });

beforeAll(async () => {
  neonConfig.fetchEndpoint = (host, p) => `http://${host}:${p}/sql`;
  await sql.query("create table if not exists protocol_probe (id int primary key, n int not null)");
  await sql.query("delete from protocol_probe");
  await sql.query("insert into protocol_probe values (1, 0)");
});

describe("local Neon SQL-over-HTTP endpoint", () => {
  it("returns raw text with type OIDs that the driver parses into JS values", async () => {
    const [row] = await sql.query(
      `select 42::int4 as i, 9007199254740993::int8 as big, 1.25::float8 as f, 12.340::numeric(6,3) as num,
              true as b, null::text as n, 'it''s'::text as t, '2024-02-29'::date as d,
              '2024-02-29T15:45:00Z'::timestamptz as ts, '{"a":[1,2]}'::jsonb as j, '{1,2,3}'::int[] as arr,
              '\\x0102ff'::bytea as bin`,
    );
    expect(row).toMatchObject({
      i: 42,
      big: "9007199254740993",
      f: 1.25,
      num: "12.340",
      b: true,
      n: null,
      t: "it's",
      j: { a: [1, 2] },
      arr: [1, 2, 3],
    });
    expect(row?.ts).toEqual(new Date("2024-02-29T15:45:00Z"));
    expect(row?.d).toEqual(new Date("2024-02-29T00:00:00"));
    expect([...(row?.bin as Uint8Array)]).toEqual([1, 2, 255]);
  });

  it("binds parameters of every kind as text", async () => {
    const [row] = await sql.query("select $1::int + 1 as a, $2::text as b, $3::bool as c, $4::date as d, $5::text is null as e", [
      41,
      "x'y",
      false,
      "2024-01-02",
      null,
    ]);
    expect(row).toMatchObject({ a: 42, b: "x'y", c: false, e: true });
  });

  it("answers database errors as Neon does: HTTP 400 with message and SQLSTATE code", async () => {
    const err = await sql.query("select * from no_such_table").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ code: "42P01", message: expect.stringContaining("no_such_table") });
    const res = await post(JSON.stringify({ query: "select 1/0", params: [] }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "22012", message: "division by zero", severity: "ERROR" });
  });

  it("rejects malformed protocol requests with 400 and a message", async () => {
    for (const body of [
      "not json",
      JSON.stringify({ nope: 1 }),
      JSON.stringify({ query: 1 }),
      JSON.stringify({ queries: "x" }),
      JSON.stringify({ query: "select 1", params: "x" }),
    ]) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(await res.json()).toHaveProperty("message");
    }
    const header = await post(JSON.stringify({ queries: [{ query: "select 1", params: [] }] }), {
      "Neon-Batch-Isolation-Level": "Chaotic",
    });
    expect(header.status).toBe(400);
  });

  it("runs a batch atomically: a failing statement rolls back the earlier ones", async () => {
    await expect(sql.transaction([sql`update protocol_probe set n = n + 100 where id = 1`, sql`select 1/0`])).rejects.toMatchObject({
      code: "22012",
    });
    const [row] = await sql.query("select n from protocol_probe where id = 1");
    expect(row?.n).toBe(0);
  });

  it("honours read-only batches and isolation levels", async () => {
    await expect(sql.transaction([sql`update protocol_probe set n = n + 1 where id = 1`], { readOnly: true })).rejects.toMatchObject({
      code: "25006",
    });
    const [[iso]] = (await sql.transaction([sql`show transaction_isolation`], {
      isolationLevel: "Serializable",
      readOnly: true,
      deferrable: true,
    })) as [Record<string, string>[]];
    expect(iso?.transaction_isolation).toBe("serializable");
  });

  it("serves concurrent single queries and batches correctly", async () => {
    const singles = Array.from({ length: 48 }, (_, i) => sql.query("select $1::int * 2 as v, pg_sleep(0.005)", [i]).then((r) => r[0]?.v));
    const batches = Array.from({ length: 24 }, () =>
      sql.transaction([sql`update protocol_probe set n = n + 1 where id = 1`, sql`select n from protocol_probe where id = 1`]),
    );
    const values = await Promise.all(singles);
    expect(values).toEqual(Array.from({ length: 48 }, (_, i) => i * 2));
    await Promise.all(batches);
    const [row] = await sql.query("select n from protocol_probe where id = 1");
    expect(row?.n).toBe(24);
  });

  it("serves only this run's clients: the password, no browser, the loopback host name", async () => {
    const select = JSON.stringify({ query: "select 1", params: [] });
    const wrong = url.replace(`:${testSqlPassword()}@`, ":guess@");
    for (const headers of [{ "Neon-Connection-String": wrong }, { "Neon-Connection-String": "" }]) {
      const res = await fetch(`http://127.0.0.1:${port}/sql`, { method: "POST", headers, body: select });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: "28P01" });
    }
    expect((await fetch(`http://127.0.0.1:${port}/sql`, { method: "POST", body: select })).status).toBe(401);
    // A page the developer visits can send a text/plain POST without a preflight, but not hide its Origin.
    expect((await post(select, { Origin: "https://evil.example", "Content-Type": "text/plain" })).status).toBe(403);
    // DNS rebinding: another host name resolving to 127.0.0.1.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/sql", method: "POST", headers: { Host: `evil.example:${port}`, "Neon-Connection-String": url } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(select);
    });
    expect(rebound).toBe(403);
    expect((await post(select)).status).toBe(200);
  });

  it("puts the database at a distance when asked: every SQL request waits the round trip first, and each is counted", async () => {
    const distantPort = Number(process.env.TEST_DISTANT_SQL_PORT);
    const distant = neon(`postgresql://app:${testSqlPassword()}@127.0.0.1:${distantPort}/distance_probe`);
    const counted = () => endpointTrips(distantPort, "distance_probe");
    const before = await counted();
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await distant.query("select 1");
      expect(performance.now() - started).toBeGreaterThanOrEqual(DISTANT_RTT_MS);
    }
    const batch = performance.now();
    await distant.transaction([distant`select 1`, distant`select 2`]);
    expect(performance.now() - batch).toBeGreaterThanOrEqual(DISTANT_RTT_MS);
    // A batch is one round trip; the near endpoint adds nothing.
    expect((await counted()) - before).toBe(6);
  });
});
