import { afterEach, describe, expect, it } from "vitest";
import { SYSTEM_CODE, type DbnRecord } from "../../ingest/dbn";
import { LiveRefusedError, type LiveOptions } from "../../ingest/sources/opra/live/live-client";
import { LIVE_SCHEMAS } from "../../ingest/sources/opra/live/protocol";
import { TRADE_EXECUTED_BEFORE_NS as MAX_RECEIVE_DELAY_NS } from "../../ingest/sources/opra/from-dbn";
import { receiveTime } from "../../ingest/sources/opra/feed-files";
import { followLive } from "../../ingest/sources/opra/live/follow-live";
import type { LocalGateway } from "../../devkit/gateway/local-gateway";
import { gatewayOver as startGateway, liveClient, takeData } from "./live-fixture";
import { ingestDatabase } from "../support/ingest-database";
import type { OccContract } from "../../src/domain/occ";
import { nanos, OpraStream } from "./opra-stream";

const KEY = "db-LocalGatewayTestKey00000abcde";
const call: OccContract = { root: "AAPL", expiration: "2026-03-20", strike: 200, side: "call" };
const put: OccContract = { ...call, side: "put" };

/** A session's records: definitions, open interest, trades (two sharing a receive time), minute samples. */
function session(): DbnRecord[] {
  const s = new OpraStream();
  s.define(call, "AAPL", "2026-03-02T11:00:00Z");
  s.define(put, "AAPL", "2026-03-02T11:00:00Z");
  s.openInterest(call, "2026-03-02T11:30:00Z", 1_200);
  s.trade(call, "2026-03-02T14:30:00Z", 3.1, 5, 3.0, 3.2);
  s.trade(put, "2026-03-02T14:30:00Z", 2.1, 2, 2.0, 2.2);
  s.trade(call, "2026-03-02T14:30:05Z", 3.15, 1, 3.1, 3.2);
  s.quote(call, "2026-03-02T14:31:00Z", 3.1, 3.2, 3.15);
  s.quote(put, "2026-03-02T14:31:00Z", 2.0, 2.2, 2.1);
  s.trade(put, "2026-03-02T14:31:30Z", 2.15, 4, 2.1, 2.2);
  return s.records;
}

let gateway: LocalGateway | undefined;
let abort: AbortController;
afterEach(async () => {
  abort?.abort();
  await gateway?.close();
  gateway = undefined;
});

/** A gateway over `records` whose clock the test moves (`clock.now`). */
async function gatewayOver(records: DbnRecord[], clock = { now: nanos("2030-01-01T00:00:00Z") }) {
  gateway = await startGateway(KEY, records, clock);
  return { gateway, clock };
}

function client(overrides: Partial<LiveOptions> = {}) {
  abort = new AbortController();
  return liveClient(gateway!, KEY, abort.signal, { backoff: { min: 20, max: 100 }, ...overrides });
}

const take = takeData;

describe("the live gateway protocol", () => {
  it("refuses a wrong key at authentication, and the client gives up at once", async () => {
    await gatewayOver(session());
    const { records } = client({ apiKey: "db-SomeOtherKey000000000000yzzzz" });
    await expect(records.next()).rejects.toThrow(LiveRefusedError);
    expect(gateway!.sessions).toHaveLength(0);
  });

  it("subscribes to the four schemas from the start it asks, and receives the session in receive-time order", async () => {
    const records = session();
    await gatewayOver(records);
    const start = nanos("2026-03-02T11:15:00Z");
    const { records: live, log } = client({ start });
    const received = await take(live, records.length - 2);
    // Selected by event time, each schema but the minute samples from early enough to bring every record received from `start` on.
    const early = start - MAX_RECEIVE_DELAY_NS;
    expect(gateway!.sessions).toEqual([
      {
        schemas: [...LIVE_SCHEMAS],
        start: early,
        starts: [
          { schema: "definition", start: early },
          { schema: "statistics", start: early },
          { schema: "cbbo-1m", start },
          { schema: "tcbbo", start: early },
        ],
      },
    ]);
    // The definitions of 11:00 precede the start asked for: the rest comes, in order.
    expect(received).toEqual(records.slice(2));
    expect(log.filter((l) => l.event === "feed_notice" && l.code === SYSTEM_CODE.SUBSCRIPTION_ACK)).toHaveLength(4);
  });

  it("after a dropped connection, reconnects with a replay from the newest receive time it delivered: each record once", async () => {
    const records = session();
    // Due so far: up to the two trades sharing one receive time (records 3 and 4).
    const { clock } = await gatewayOver(records, { now: receiveTime(records[4]!) });
    const { records: live, log } = client();
    const first = await take(live, 4);
    gateway!.drop();
    clock.now = nanos("2030-01-01T00:00:00Z");
    const rest = await take(live, records.length - 4);
    expect([...first, ...rest]).toEqual(records);
    expect(gateway!.sessions).toHaveLength(2);
    expect(gateway!.sessions[1]!.starts).toContainEqual({ schema: "tcbbo", start: receiveTime(records[4]!) - MAX_RECEIVE_DELAY_NS });
    expect(gateway!.sessions[1]!.starts).toContainEqual({ schema: "cbbo-1m", start: receiveTime(records[4]!) });
    expect(log.map((l) => l.event)).toContain("feed_resumed");
  });

  it("takes a gateway silent past the heartbeat interval + 5 s for dead, and resumes once it answers", async () => {
    const records = session();
    const { clock } = await gatewayOver(records, { now: receiveTime(records[5]!) });
    const { records: live, log } = client({ heartbeatIntervalS: 1 });
    expect(await take(live, 6)).toEqual(records.slice(0, 6));
    gateway!.mute();
    const next = take(live, 3);
    while (!log.some((l) => l.event === "feed_dropped")) await new Promise((r) => setTimeout(r, 100));
    expect(String(log.find((l) => l.event === "feed_dropped")!.error)).toMatch(/no data or heartbeat for 6 s/);
    gateway!.mute(false);
    clock.now = nanos("2030-01-01T00:00:00Z");
    expect(await next).toEqual(records.slice(6));
  }, 20_000);

  it("holds the gateway back while its reader is slow: a morning's burst arrives whole and in order, the socket paused rather than the backlog growing", async () => {
    const s = new OpraStream();
    // 150,000 definitions at one receive time, as a morning's universe arrives.
    const burst = 150_000;
    for (let i = 0; i < burst; i++) s.define({ ...call, strike: 1 + i / 100 }, "AAPL", "2026-03-02T11:00:00Z");
    await gatewayOver(s.records);
    const { records } = client();
    const got: DbnRecord[] = [];
    for (;;) {
      const batch = await take(records, 10_000);
      got.push(...batch);
      if (got.length >= burst) break;
      if (got.length === 10_000) {
        // Unread, the gateway stalls once the client's backlog (≤ 50,000) and the sockets' buffers
        // (megabytes each way: 100,209 sent once under load) are full — well short of the burst.
        let seen = -1;
        while (gateway!.sent !== seen && gateway!.sent < burst) {
          seen = gateway!.sent;
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
        expect(gateway!.sent).toBeLessThan(125_000);
      }
      // A slow writer: the client must not read the whole burst into memory meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(got).toHaveLength(burst);
    expect(got.map((r) => r.instrumentId)).toEqual(s.records.map((r) => r.instrumentId));
  });

  it("ends an intraday replay with the vendor's notice once everything due is sent, though the next record is hours away", async () => {
    const records = session();
    // The clock at the open interest of 11:30: the trades of 14:30 are three hours away.
    await gatewayOver(records, { now: receiveTime(records[2]!) });
    const { records: live, log } = client();
    expect(await take(live, 3)).toHaveLength(3);
    void live.next();
    const replayed = () => log.some((l) => l.event === "feed_notice" && l.code === SYSTEM_CODE.REPLAY_COMPLETED);
    for (const started = Date.now(); !replayed() && Date.now() - started < 5_000;) await new Promise((r) => setTimeout(r, 20));
    expect(replayed()).toBe(true);
  });

  it("sends heartbeats while nothing is due, each stamped with the feed's clock", async () => {
    const records = session();
    await gatewayOver(records, { now: nanos("2026-03-02T10:00:00Z") });
    const { records: live } = client({ heartbeatIntervalS: 1 });
    const { value } = await live.next();
    expect(value).toMatchObject({ kind: "system", code: 0, tsEvent: nanos("2026-03-02T10:00:00Z") });
  }, 10_000);

  it("feeds the pipeline: through a drop, every trade is stored once, and a restart resumes after the stored positions", async () => {
    const db = await ingestDatabase();
    try {
      await db.typedQuery(
        `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2026-02-27T21:00:00Z', '2026-02-27', 0.04, 'seed')`,
      );
      const records = session();
      const { clock } = await gatewayOver(records, { now: receiveTime(records[4]!) });
      const follow = (signal: AbortSignal, log: Record<string, unknown>[] = []) =>
        followLive(db, {
          host: "127.0.0.1",
          port: gateway!.port,
          apiKey: KEY,
          feed: "databento-opra",
          log: (f) => log.push(f),
          signal,
          backoff: { min: 20, max: 100 },
          // The wall clock: after the session's records (a record received 5 min ahead of it is refused).
          now: () => new Date("2026-03-02T14:35:00Z"),
        });
      const prints = async () => Number((await db.typedQuery(`select count(*)::int as n from flow_prints`)).rows[0]!.n);
      const until = async (done: () => Promise<boolean>) => {
        while (!(await done())) await new Promise((r) => setTimeout(r, 50));
      };
      let stop = new AbortController();
      const log: Record<string, unknown>[] = [];
      const running = follow(stop.signal, log);
      await until(async () => (await prints()) === 2);
      gateway!.drop();
      clock.now = nanos("2030-01-01T00:00:00Z");
      await until(async () => (await prints()) === 4);
      stop.abort();
      await running;
      expect(log.map((l) => l.event)).toContain("feed_resumed");
      // Two sessions: the market's first, from midnight in New York (the definitions of 11:00 came);
      // trades once its replay was done.
      const midnight = nanos("2026-03-02T05:00:00Z");
      expect(gateway!.sessions.slice(0, 2)).toMatchObject([
        { schemas: ["definition", "statistics", "cbbo-1m"], start: midnight - MAX_RECEIVE_DELAY_NS },
        { schemas: ["tcbbo"], start: midnight - MAX_RECEIVE_DELAY_NS },
      ]);

      // A restart asks each session from its oldest stored position and stores nothing twice.
      const before = gateway!.sessions.length;
      stop = new AbortController();
      const again = follow(stop.signal);
      await until(async () => gateway!.sessions.length === before + 2);
      await new Promise((r) => setTimeout(r, 300));
      stop.abort();
      const report = await again;
      // At most each session's newest receive time of each schema comes again (written while that
      // session was quiet, so never taken for complete): the open interest of 11:30, the samples of
      // 14:31 and the trade of 14:31:30. Writing them again changes nothing.
      expect(report.accepted).toBeLessThanOrEqual(4);
      expect(await prints()).toBe(4);
      const { rows } = await db.typedQuery(`select option_symbol, volume::int, open_interest from option_quotes order by 1`);
      expect(rows).toEqual([
        // The statistics went quiet long before the trades: the day's open interest was switched in.
        { option_symbol: "AAPL260320C00200000", volume: 6, open_interest: 1_200 },
        { option_symbol: "AAPL260320P00200000", volume: 6, open_interest: 0 },
      ]);
    } finally {
      await db.close();
    }
  }, 30_000);
});
