import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumeFeed } from "../../ingest/sources/opra/replay";
import { dueSession } from "../../ingest/session/follow-sessions";
import { isRolled, rollSession } from "../../ingest/session/roll-session";
import { seedMarket } from "../../devkit/generator/seed-market";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { previousSessions } from "../../src/domain/calendar";
import type { OccContract } from "../../src/domain/occ";
import { ingestDatabase } from "../support/ingest-database";
import { feedOf, nanos, OpraStream } from "./opra-stream";
import { testDatabaseUrl } from "../support/test-database";

/** The tables a roll writes, each with its key (the digest's order). */
const ROLLED: Record<string, string> = {
  option_quotes: "option_symbol",
  option_daily: "option_symbol, date",
  equity_daily: "symbol, date",
  equity_quotes: "symbol",
  iv_daily: "symbol, date",
  screener_baselines: "session_date, underlying, option_symbol",
  screener_underlying_baselines: "session_date, symbol",
};
/** Restored before each roll of the crash cases, with the bookkeeping the roll moves. */
const RESTORED = [...Object.keys(ROLLED), "session_rolls", "market_versions", "market_state"];

async function digest(db: SqlBackend): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [table, key] of Object.entries(ROLLED)) {
    const { rows } = await db.typedQuery(`select md5(coalesce(string_agg(t::text, '|' order by ${key}), '')) as d from ${table} t`);
    out[table] = rows[0]!.d as string;
  }
  return out;
}

const snapshot = async (db: SqlBackend) => {
  for (const t of RESTORED) {
    await db.typedQuery(`drop table if exists snap_${t}`);
    await db.typedQuery(`create table snap_${t} as select * from ${t}`);
  }
};
const restore = async (db: SqlBackend) => {
  for (const t of RESTORED) {
    await db.typedQuery(`delete from ${t}`);
    await db.typedQuery(`insert into ${t} select * from snap_${t}`);
  }
};

/** Gives each underlying's equity quote a range in `session`, as the quotes writer leaves it. */
async function spotsWritten(db: SqlBackend, session: string) {
  await db.typedQuery(`update equity_quotes set session_date = $1, open = price * 0.99, high = price * 1.02, low = price * 0.98`, [
    session,
  ]);
}

describe("the session roll, after a regular close before a holiday and a weekend (Thursday 2026-07-02)", () => {
  const SESSION = "2026-07-02";
  let db: SqlBackend;
  let reference: Record<string, string>;
  beforeAll(async () => {
    db = await ingestDatabase();
    await seedMarket(db, { size: "test", seed: 4, sessionDate: SESSION });
    await spotsWritten(db, SESSION);
    await snapshot(db);
  }, 180_000);
  afterAll(async () => db.close());

  it("is due 30 minutes after the 16:00 close, not before, and not while data newer than that keeps coming", async () => {
    await db.typedQuery(`update market_state set as_of = '2026-07-02T20:14:00Z'`);
    expect(await dueSession(db, new Date("2026-07-02T20:29:59Z"))).toBeNull();
    expect(await dueSession(db, new Date("2026-07-02T20:30:00Z"))).toBe(SESSION);
    await db.typedQuery(`update market_state set as_of = '2026-07-02T20:31:00Z'`);
    expect(await dueSession(db, new Date("2026-07-02T21:00:00Z"))).toBeNull();
    // Nothing written after 15:00 (the ingestor stopped then): the session barrier rolls it once the feed's replay has.
    await db.typedQuery(`update market_state set as_of = '2026-07-02T19:00:00Z'`);
    await db.typedQuery(`update market_versions set as_of = least(as_of, '2026-07-02T19:00:00Z')`);
    expect(await dueSession(db, new Date("2026-07-03T14:00:00Z"))).toBeNull();
    // A write of the close's sample (its data time in `market_versions`) makes it due.
    await db.typedQuery(`insert into market_versions (scope, version, as_of) values ('AAPL', 1, '2026-07-02T20:00:00Z')
      on conflict (scope) do update set as_of = excluded.as_of`);
    expect(await dueSession(db, new Date("2026-07-03T14:00:00Z"))).toBe(SESSION);
    await restore(db);
  });

  it("is not held back past 16:30 by a trade stamped hours after its receipt: the feed's reader drops it", async () => {
    await db.typedQuery(`update market_state set as_of = '2026-07-02T20:14:00Z'`);
    const { rows } = await db.typedQuery(
      `select root, expiration::text as expiration, strike, side from option_quotes where expiration > $1 order by option_symbol limit 1`,
      [SESSION],
    );
    const c = rows[0] as unknown as OccContract;
    const stream = new OpraStream();
    stream.map(c, "2026-07-02T14:59:00Z");
    stream.trade(c, "2026-07-02T15:00:00Z", 1.05, 1, 1, 1.1);
    // Received at 11:00:30 ET, stamped 17:00:30: written, it would be the market's newest data, later than the roll's 16:30.
    stream.rawTrade(c, { tsRecv: nanos("2026-07-02T15:00:30Z"), tsEvent: nanos("2026-07-02T21:00:30Z"), price: 1.1, size: 1 });
    const report = await consumeFeed(db, () => [{ records: feedOf(stream.records) }], { feed: "databento-opra", log: () => undefined });
    expect(await dueSession(db, new Date("2026-07-02T20:30:00Z"))).toBe(SESSION);
    expect(report).toMatchObject({ accepted: 1, dropped: { "implausible-time": 1 } });
    await restore(db);
  }, 60_000);

  it("appends the session to the history, retires what expired, and writes the baselines of the next session (Monday 07-06)", async () => {
    const listed = await db.typedQuery(
      `select count(*) filter (where expiration >= $1)::int as live, count(*) filter (where expiration <= $1)::int as expiring,
              count(*) filter (where expiration > $1)::int as going_on from option_quotes`,
      [SESSION],
    );
    const { live, expiring, going_on } = listed.rows[0] as Record<string, number>;
    expect(expiring).toBeGreaterThan(0);
    const sample = (
      await db.typedQuery(
        `select option_symbol, open_interest, iv, (bid + ask) / 2 as mark from option_quotes
          where expiration > $1 and bid > 0 and ask >= bid order by option_symbol limit 1`,
        [SESSION],
      )
    ).rows[0]!;
    const versions = (await db.typedQuery("select scope_version::int as v from market_state")).rows[0]!.v as number;

    expect(await rollSession(db, SESSION)).toEqual(["history", "retire", "baselines"]);

    const day = await db.typedQuery(`select count(*)::int as n from option_daily where date = $1`, [SESSION]);
    expect(day.rows[0]!.n).toBe(live);
    const row = (await db.typedQuery(`select * from option_daily where date = $1 and option_symbol = $2`, [SESSION, sample.option_symbol]))
      .rows[0]!;
    expect(row.open_interest).toBe(sample.open_interest);
    expect(row.iv).toBeCloseTo(sample.iv as number, 12);
    expect(row.mark).toBeCloseTo(sample.mark as number, 12);
    // 30 sessions of contract history, this one the newest.
    const dates = (await db.typedQuery(`select distinct date::text as d from option_daily order by 1`)).rows.map((r) => r.d);
    expect(dates).toEqual(previousSessions(SESSION, 30));
    const bar = await db.typedQuery(
      `select d.open, d.high, d.low, d.close, q.price from equity_daily d join equity_quotes q on q.symbol = d.symbol where d.date = $1`,
      [SESSION],
    );
    expect(bar.rows.length).toBeGreaterThan(0);
    for (const b of bar.rows) {
      const price = b.price as number;
      expect([b.open, b.high, b.low, b.close]).toEqual([price * 0.99, price * 1.02, price * 0.98, price]);
    }

    expect((await db.typedQuery("select count(*)::int as n from option_quotes")).rows[0]!.n).toBe(going_on);
    expect((await db.typedQuery("select scope_version::int as v from market_state")).rows[0]!.v).toBeGreaterThan(versions);

    const baselines = await db.typedQuery(
      `select session_date::text as d, count(*)::int as n from screener_baselines group by 1 order by 1`,
    );
    expect(baselines.rows.map((r) => r.d)).toEqual([SESSION, "2026-07-06"]);
    const next = baselines.rows[1]!.n as number;
    expect(next).toBe(going_on);
    // The next session's baseline counts this session too.
    const samples = await db.typedQuery(
      `select b.samples, (select count(*)::int from option_daily h where h.option_symbol = b.option_symbol) as n
         from screener_baselines b where b.session_date = '2026-07-06' and b.option_symbol = $1`,
      [sample.option_symbol],
    );
    expect(samples.rows[0]!.samples).toBe(samples.rows[0]!.n);
    // The underlyings' figures of the next session: the closes up to it (this session's bar too), the IVs before it.
    const figures = await db.typedQuery(
      `select b.session_date::text as d, b.avg50,
              (select avg(c.close) from (select e.close from equity_daily e where e.symbol = b.symbol order by e.date desc limit 50) c) as expected,
              b.iv_high, (select max(i.iv) from iv_daily i where i.symbol = b.symbol and i.date > '2025-07-06' and i.date < b.session_date) as expected_high
         from screener_underlying_baselines b where b.symbol = 'AAPL' order by 1`,
    );
    expect(figures.rows.map((r) => r.d)).toEqual([SESSION, "2026-07-06"]);
    expect(figures.rows[1]!.avg50 as number).toBeCloseTo(figures.rows[1]!.expected as number, 9);
    expect(figures.rows[1]!.iv_high).toBe(figures.rows[1]!.expected_high);

    expect(await isRolled(db.typedQuery, SESSION)).toBe(true);
    expect(await dueSession(db, new Date("2026-07-03T12:00:00Z"))).toBeNull();
    reference = await digest(db);
    expect(await rollSession(db, SESSION)).toEqual([]);
    expect(await digest(db)).toEqual(reference);
  }, 120_000);

  it("killed after any step, or after a step committed but before it was recorded, and run again: the same tables", async () => {
    for (const crashAfter of ["history", "retire", "baselines"]) {
      await restore(db);
      const crash = new Error(`killed after ${crashAfter}`);
      await expect(
        rollSession(db, SESSION, async (step) => {
          if (step === crashAfter) throw crash;
        }),
      ).rejects.toBe(crash);
      expect(await isRolled(db.typedQuery, SESSION)).toBe(crashAfter === "baselines");
      await rollSession(db, SESSION);
      expect(await digest(db), `killed after ${crashAfter}`).toEqual(reference);
      // The step's work committed, its record lost: it runs again, to the same tables.
      await db.typedQuery(`delete from session_rolls where step = $1`, [crashAfter]);
      expect(await rollSession(db, SESSION)).toEqual([crashAfter]);
      expect(await digest(db), `${crashAfter} run twice`).toEqual(reference);
    }
  }, 180_000);

  it("started twice at once (the 16:30 follower and the ingestor's session barrier): one rolls, the other finds it done", async () => {
    await restore(db);
    const both = await Promise.all([rollSession(db, SESSION), rollSession(db, SESSION)]);
    expect(both).toEqual([["history", "retire", "baselines"], []]);
    expect(await digest(db)).toEqual(reference);
  }, 180_000);

  it.skipIf(!testDatabaseUrl())(
    "SIGKILLed at any moment of `npm run roll` and run again: the same tables",
    async () => {
      const killed: (number | string)[] = [];
      for (const ms of [0, 30, 80, 150, 300, 600]) {
        await restore(db);
        killed.push(await rollProcess(db, SESSION, ms));
        expect(await rollProcess(db, SESSION)).toBe(0);
        expect(await digest(db), `killed ${ms} ms in`).toEqual(reference);
      }
      // At least one run died mid-roll (the others may have finished first).
      expect(killed).toContain("SIGKILL");
    },
    300_000,
  );
});

/**
 * `npm run roll -- --session S` on the test's database, SIGKILLed `killAfterMs` after it starts
 * rolling (not at all when undefined). Resolves with its exit code, or the signal that ended it.
 */
async function rollProcess(db: SqlBackend, session: string, killAfterMs?: number): Promise<number | string> {
  const url = new URL(testDatabaseUrl()!);
  url.pathname = `/${(await db.typedQuery("select current_database() as name")).rows[0]!.name as string}`;
  const child = spawn(process.execPath, ["--import", "tsx", "ingest/cli/roll.ts", "--session", session], {
    env: { ...process.env, DATABASE_URL: url.toString() },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout.on("data", (chunk: Buffer) => {
    if (killAfterMs !== undefined && chunk.toString().includes("session_roll_started"))
      setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code ?? -1)));
}

describe("the session roll of an early close before a weekend (Friday 2026-11-27, 13:00) and before Christmas (Thursday 2026-12-24)", () => {
  let db: SqlBackend;
  beforeAll(async () => {
    db = await ingestDatabase();
    await seedMarket(db, { size: "test", seed: 6, sessionDate: "2026-11-27" });
  }, 180_000);
  afterAll(async () => db.close());

  it("is due 30 minutes after the 13:00 close, and writes the baselines of the Monday", async () => {
    await db.typedQuery(`update market_state set as_of = '2026-11-27T18:00:00Z'`);
    expect(await dueSession(db, new Date("2026-11-27T18:29:59Z"))).toBeNull();
    expect(await dueSession(db, new Date("2026-11-27T18:30:00Z"))).toBe("2026-11-27");
    await rollSession(db, "2026-11-27");
    const sessions = await db.typedQuery(`select distinct session_date::text as d from screener_baselines order by 1`);
    expect(sessions.rows.map((r) => r.d)).toEqual(["2026-11-27", "2026-11-30"]);
  }, 120_000);

  it("before Christmas the next session is the Monday after it (2026-12-28)", async () => {
    await db.typedQuery(`update market_state set session_date = '2026-12-24', as_of = '2026-12-24T18:00:00Z'`);
    expect(await dueSession(db, new Date("2026-12-24T18:30:00Z"))).toBe("2026-12-24");
    await rollSession(db, "2026-12-24");
    const sessions = await db.typedQuery(`select distinct session_date::text as d from screener_baselines order by 1`);
    // The market's own session had none (it was moved by hand); the Monday's are written.
    expect(sessions.rows.map((r) => r.d)).toEqual(["2026-12-28"]);
  }, 120_000);
});
