import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { OccContract } from "../../src/domain/occ";
import { applyOpenInterest, stagedSessions, stageOpenInterest } from "../../ingest/contracts/write-open-interest";
import { writeDefinitions } from "../../ingest/contracts/write-definitions";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";
import { OpraStream } from "./opra-stream";

const FEED = "databento-opra";
const call = (expiration: string, strike: number): OccContract => ({ root: "MSFT", expiration, strike, side: "call" });

let db: SqlBackend;
beforeAll(async () => {
  db = await ingestDatabase();
}, 60_000);
beforeEach(async () => {
  await db.typedQuery(
    "truncate option_quotes, equity_quotes, underlyings, market_state, market_versions, feed_positions, open_interest_staged cascade",
  );
  await db.typedQuery(
    `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2026-03-02T21:00:00Z', '2026-03-02', 0.04, 'seed')`,
  );
});
afterAll(async () => db.close());

const symbols = async () =>
  (await db.typedQuery(`select option_symbol, open_interest from option_quotes order by 1`)).rows.map((r) => [
    r.option_symbol,
    r.open_interest,
  ]);

describe("definitions", () => {
  it("list contracts unquoted under a new underlying, delist them, and retire those expired before the definitions' session", async () => {
    const stream = new OpraStream();
    const monday = "2026-03-02T11:00:00Z";
    const listed = [call("2026-03-02", 400), call("2026-03-06", 400), call("2026-03-20", 410)].map((c) => stream.define(c, "MSFT", monday));
    expect(await writeDefinitions(db, FEED, listed)).toEqual({ written: 3, skipped: 0 });
    expect(await symbols()).toEqual([
      ["MSFT260302C00400000", null],
      ["MSFT260306C00400000", null],
      ["MSFT260320C00410000", null],
    ]);
    const { rows } = await db.typedQuery(`select symbol, name, asset_type, in_coverage from underlyings`);
    expect(rows).toEqual([{ symbol: "MSFT", name: "MSFT", asset_type: "stock", in_coverage: false }]);

    // Tuesday's definitions: Monday's expiration is retired, one contract is deleted, one added.
    const tuesday = "2026-03-03T11:00:00Z";
    await writeDefinitions(db, FEED, [
      stream.define(call("2026-03-20", 410), "MSFT", tuesday, "D"),
      stream.define(call("2026-03-27", 420), "MSFT", tuesday),
    ]);
    expect((await symbols()).map(([s]) => s)).toEqual(["MSFT260306C00400000", "MSFT260327C00420000"]);

    // Replayed after a restart: nothing at or before the position is applied again.
    expect(await writeDefinitions(db, FEED, listed)).toEqual({ written: 0, skipped: 3 });
    expect(await symbols()).toHaveLength(2);
  });

  it("give the underlyings and roots they touch a new version, and only those", async () => {
    const stream = new OpraStream();
    const at = "2026-03-02T11:00:00Z";
    await writeDefinitions(db, FEED, [stream.define(call("2026-03-20", 410), "MSFT", at)]);
    await writeDefinitions(db, FEED, [
      stream.define({ root: "SPXW", expiration: "2026-03-20", strike: 5000, side: "put" }, "SPX", "2026-03-02T11:01:00Z"),
    ]);
    const { rows } = await db.typedQuery(`select scope, version::int from market_versions order by scope`);
    expect(rows).toEqual([
      { scope: "MSFT", version: 1 },
      { scope: "SPX", version: 2 },
      { scope: "SPXW", version: 2 },
    ]);
    const { rows: state } = await db.typedQuery(`select version::int, scope_version::int from market_state`);
    expect(state[0]).toEqual({ version: 1, scope_version: 2 });
  });
});

describe("open interest", () => {
  it("is staged as the statistics arrive and switched in whole for its session: named contracts take it, the others 0", async () => {
    const stream = new OpraStream();
    const [a, b, c] = [call("2026-03-20", 400), call("2026-03-20", 405), call("2026-03-20", 410)];
    await writeDefinitions(
      db,
      FEED,
      [a, b, c].map((x) => stream.define(x, "MSFT", "2026-03-02T11:00:00Z")),
    );
    await db.typedQuery(`update option_quotes set open_interest = 50`);

    // Published Tuesday 06:30 ET for Tuesday's session.
    const at = "2026-03-03T11:30:00Z";
    expect(await stageOpenInterest(db, FEED, [stream.openInterest(a, at, 1200), stream.openInterest(b, at, 7)])).toEqual({
      written: 2,
      skipped: 0,
    });
    expect(await stagedSessions(db.typedQuery)).toEqual(["2026-03-03"]);
    expect((await symbols()).map(([, oi]) => oi)).toEqual([50, 50, 50]);

    expect(await applyOpenInterest(db, "2026-03-03")).toEqual({ applied: true });
    expect((await symbols()).map(([, oi]) => oi)).toEqual([1200, 7, 0]);
    const { rows } = await db.typedQuery(`select open_interest_date::text as d, version::int as version from market_state`);
    expect(rows[0]).toEqual({ d: "2026-03-03", version: 2 });
    expect(await stagedSessions(db.typedQuery)).toEqual([]);

    // An older session staged late (a replay) never replaces a newer one; it only leaves the stage.
    await db.typedQuery(`delete from feed_positions`);
    await stageOpenInterest(db, FEED, [stream.openInterest(a, "2026-03-02T11:30:00Z", 999)]);
    expect(await applyOpenInterest(db, "2026-03-02")).toEqual({ applied: false });
    expect((await symbols()).map(([, oi]) => oi)).toEqual([1200, 7, 0]);
    expect(await stagedSessions(db.typedQuery)).toEqual([]);
  });

  it("applied twice (a crash after the switch, before the stage was read again), gives the same table", async () => {
    const stream = new OpraStream();
    const a = call("2026-03-20", 400);
    await writeDefinitions(db, FEED, [stream.define(a, "MSFT", "2026-03-02T11:00:00Z")]);
    await stageOpenInterest(db, FEED, [stream.openInterest(a, "2026-03-03T11:30:00Z", 321)]);
    await applyOpenInterest(db, "2026-03-03");
    expect(await applyOpenInterest(db, "2026-03-03")).toEqual({ applied: false });
    expect(await symbols()).toEqual([["MSFT260320C00400000", 321]]);
  });
});
