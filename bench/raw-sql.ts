import { database, useNeonEndpoint } from "../src/db/client";
import { addDays, todayInNewYork } from "../src/domain/calendar";
import { benchGex } from "./gex-analytics";
import { chainPageQuery } from "../src/market/chain";
import { optionQuotesQuery } from "../src/market/option-quotes";
import { screenCountQuery, screenPageQuery } from "../src/market/screener";
import { screenRules, type ScreenBodyInput } from "../src/routes/screener/screen-body";
import { compileScreen } from "../src/screener/compile";
import type { SqlBackend } from "../ingest/db/sql-backend";
import { percentile } from "./measure";
import { SCREENS, type MarketTargets } from "./targets";

/** A local SQL endpoint at a distance. */
export interface SqlEndpoint {
  rtt: number;
  port: number;
}

/** p50 of each run, `samples` rounds of one call to every run in turn (interleaved, like the endpoints). */
async function interleavedP50(runs: (() => Promise<unknown>)[], samples: number): Promise<number[]> {
  const out = runs.map(() => [] as number[]);
  for (let i = 0; i < samples; i++) {
    for (const [k, run] of runs.entries()) {
      const started = performance.now();
      await run();
      out[k]!.push(performance.now() - started);
    }
  }
  return out.map((ms) =>
    percentile(
      ms.sort((a, b) => a - b),
      50,
    ),
  );
}

/**
 * The same SQL the chain and batch endpoints send (built by the same query builders), timed
 * directly on the database and through each local SQL-over-HTTP endpoint with the production
 * driver, with the plans of those and of the screens: the floors the endpoints are compared with,
 * and what the distance knob itself costs.
 */
export async function reportRawSql(
  backend: SqlBackend,
  endpoints: SqlEndpoint[],
  sqlPassword: string,
  market: MarketTargets,
  endpointP50: (key: string) => number[] | undefined,
  samples: number,
): Promise<void> {
  const today = todayInNewYork();
  const filter = { symbol: market.largest, expirationFrom: today, expirationTo: addDays(today, 45) };
  // Builds SQL text only; through a local endpoint when a query is awaited.
  useNeonEndpoint("http://{host}:{port}/sql");
  const dbs = endpoints.map((e) => database(`postgresql://bench:${sqlPassword}@127.0.0.1:${e.port}/market`));
  const chain = chainPageQuery(dbs[0]!, filter, null, 250);
  const batch = optionQuotesQuery(dbs[0]!, market.batch);
  const direct = (q: { sql: string; params: unknown[] }) => () =>
    backend.query(
      q.sql,
      q.params.map((p) => String(p)),
    );
  const rows: [string, string, (() => Promise<unknown>)[]][] = [
    ["chain page (250 + 1 rows)", "(new query)", [direct(chain.toSQL()), ...dbs.map((db) => () => chainPageQuery(db, filter, null, 250))]],
    ["batch of 20", "batch of 20", [direct(batch.toSQL()), ...dbs.map((db) => () => optionQuotesQuery(db, market.batch))]],
  ];
  console.log(
    `\nraw SQL, p50 of ${samples} interleaved runs: on ${backend.kind} directly, and over the local SQL-over-HTTP endpoint (production driver)` +
      ` at each distance; the endpoint's own p50 for comparison`,
  );
  for (const [label, key, runs] of rows) {
    const [sqlMs, ...httpMs] = await interleavedP50(runs, samples);
    const served = endpointP50(key);
    const at = endpoints.map((e, k) => {
      const endpoint = served?.[k] === undefined ? "" : `, endpoint ${served[k]!.toFixed(2)} ms`;
      return `rtt ${e.rtt}: ${httpMs[k]!.toFixed(2)} ms over HTTP${endpoint}`;
    });
    console.log(`  ${label}: ${sqlMs!.toFixed(2)} ms direct; ${at.join("; ")}`);
  }
  const screens = Object.entries(SCREENS).flatMap(([name, body]) => {
    const screen = compileScreen(screenRules(body as ScreenBodyInput), new Date());
    return [
      [`screen ${name}: page of 10 + 1`, screenPageQuery(dbs[0]!, screen, 11, 0).toSQL()],
      [`screen ${name}: capped count`, screenCountQuery(dbs[0]!, screen).toSQL()],
    ] as const;
  });
  for (const [label, q] of [["chain page", chain.toSQL()] as const, ["batch of 20", batch.toSQL()] as const, ...screens]) {
    const plan = await backend.query(
      `explain (analyze, buffers) ${q.sql}`,
      q.params.map((p) => String(p)),
    );
    console.log(`\nEXPLAIN ANALYZE — ${label}:\n${plan.rows.map((r) => `  ${r[0]}`).join("\n")}`);
  }
}

/** The GEX computation alone, in this process (CPU time), on a 20,000-contract chain. */
export function reportGexComputation(): void {
  const r = benchGex({ contracts: 20_000, runs: 25 });
  console.log(
    `\nGEX computation, ${r.contracts} contracts, median CPU ms of ${r.runs} runs: book ${r.bookMs.toFixed(2)}, ` +
      `flip ${r.flipMs.toFixed(2)}, profile (strikes, walls, flip) ${r.profileMs.toFixed(2)}, heatmap ${r.heatmapMs.toFixed(2)}; ` +
      `book + profile ${(r.bookMs + r.profileMs).toFixed(2)} (target ≤ 5)`,
  );
}
