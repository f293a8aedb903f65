import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openBackend } from "../../ingest/db/sql-backend";

/** The migrations up to and including `lastTag`, as a folder drizzle's migrator reads. */
function migrationsThrough(lastTag: string): string {
  const journal = JSON.parse(readFileSync("drizzle/meta/_journal.json", "utf8")) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  expect(last).toBeGreaterThanOrEqual(0);
  const dir = mkdtempSync(join(tmpdir(), "ods-migrations-"));
  mkdirSync(join(dir, "meta"));
  const entries = journal.entries.slice(0, last + 1);
  writeFileSync(join(dir, "meta/_journal.json"), JSON.stringify({ ...journal, entries }));
  for (const e of entries) copyFileSync(`drizzle/${e.tag}.sql`, join(dir, `${e.tag}.sql`));
  return dir;
}

const SERVED = ["underlying_price", "otm_pct", "open_interest", "opening", "delta", "iv", "iv_source", "open_interest_source"];

describe("migration 0010: flow print values", () => {
  it("migrates a market that already holds prints with nulls to the documented fallbacks", async () => {
    const before = migrationsThrough("0009_screener_physical_order_index");
    const backend = await openBackend({ dataDir: "memory://" });
    try {
      await backend.migrate(before);
      await backend.typedQuery(
        `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage) values ('QQQ', 'QQQ', 'etf', 'x', true, true)`,
      );
      await backend.typedQuery(`insert into equity_quotes (symbol, price, as_of) values ('QQQ', 500, '2026-11-18T20:00:00Z')`);
      const insert = (
        id: number,
        ticker: string,
        at: string,
        spot: number | null,
        oi: number | null,
        iv: number | null,
        session = "2026-11-18",
        strike = 100,
      ) =>
        backend.typedQuery(
          `insert into flow_prints (id, executed_at, session_date, ticker, option_symbol, option_type, strike, expiration, price, size, premium,
             underlying_price, otm_pct, side, sentiment, execution_type, volume, open_interest, opening, delta, iv, is_etf_or_index)
           values ($1, $2, $3, $4, $4 || '261218C00100000', 'call', $8, '2026-12-18', 1, 10, 1000,
             $5::float8, case when $5::float8 is null then null else round((($8 - $5::float8) / $5::float8 * 100)::numeric, 4)::float8 end,
             'ask', 'bullish', 'split', 10, $6::int, case when $6::int is null then null else 10 > $6::int end,
             case when $7::float8 is null then null else 0.5 end, $7::float8, false)`,
          [1000 + id, at, session, ticker, spot, oi, iv, strike],
        );
      // AAA: a print without spot between two with one (the earlier one wins), one before any (the later one).
      await insert(1, "AAA", "2026-11-18T15:00:00Z", null, null, null);
      await insert(2, "AAA", "2026-11-18T15:30:00Z", 80, 5, 0.3);
      await insert(3, "AAA", "2026-11-18T16:00:00Z", null, null, null);
      await insert(4, "AAA", "2026-11-18T17:00:00Z", 125, 20, null);
      // Another session of AAA has no spot: not borrowed from the 18th.
      await insert(5, "AAA", "2026-11-17T15:00:00Z", null, null, null, "2026-11-17");
      // QQQ: no spot in the session, the stored equity quote of the session; BBB: nothing at all.
      await insert(6, "QQQ", "2026-11-18T15:00:00Z", null, null, null, "2026-11-18", 450);
      await insert(7, "BBB", "2026-11-18T15:00:00Z", null, null, null);

      await backend.migrate("./drizzle");
      const rows = (
        await backend.typedQuery(
          `select (id - 1000)::int as id, underlying_price, otm_pct, open_interest, open_interest_source, opening, delta, iv, iv_source from flow_prints where id > 1000 order by id`,
        )
      ).rows;
      const unknown = { open_interest: 0, open_interest_source: "none", opening: false, delta: 0, iv: 0, iv_source: "none" };
      expect(rows).toEqual([
        { id: 1, underlying_price: 80, otm_pct: 25, ...unknown },
        {
          id: 2,
          underlying_price: 80,
          otm_pct: 25,
          open_interest: 5,
          open_interest_source: "session",
          opening: true,
          delta: 0.5,
          iv: 0.3,
          iv_source: "trade",
        },
        { id: 3, underlying_price: 80, otm_pct: 25, ...unknown },
        {
          id: 4,
          underlying_price: 125,
          otm_pct: -20,
          open_interest: 20,
          open_interest_source: "session",
          opening: false,
          delta: 0,
          iv: 0,
          iv_source: "none",
        },
        { id: 5, underlying_price: 0, otm_pct: 0, ...unknown },
        { id: 6, underlying_price: 500, otm_pct: -10, ...unknown },
        { id: 7, underlying_price: 0, otm_pct: 0, ...unknown },
      ]);
      const columns = (
        await backend.typedQuery(
          `select column_name, is_nullable, column_default from information_schema.columns
            where table_name = 'flow_prints' and column_name = any($1::text[]) order by column_name`,
          [SERVED],
        )
      ).rows;
      expect(columns).toHaveLength(SERVED.length);
      for (const c of columns) expect(c.is_nullable, c.column_name as string).toBe("NO");
      // A row written without them is a complete print of unknowns.
      await backend.typedQuery(
        `insert into flow_prints (executed_at, session_date, ticker, option_symbol, option_type, strike, expiration, price, size, premium,
           side, sentiment, execution_type, volume, is_etf_or_index)
         values ('2026-11-18T18:00:00Z', '2026-11-18', 'CCC', 'CCC261218C00100000', 'call', 100, '2026-12-18', 1, 1, 100, 'ask', 'bullish', 'split', 1, false)`,
      );
      const [bare] = (
        await backend.typedQuery(
          `select underlying_price, otm_pct, ${Object.keys(unknown).join(", ")} from flow_prints where ticker = 'CCC'`,
        )
      ).rows;
      expect(bare).toEqual({ underlying_price: 0, otm_pct: 0, ...unknown });
    } finally {
      await backend.close();
      rmSync(before, { recursive: true, force: true });
    }
  });
});
