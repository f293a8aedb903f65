import { addDays, todayInNewYork } from "../src/domain/calendar";
import { pathPattern, type HttpMethod } from "../src/http/route";
import { routes } from "../src/routes";
import type { SqlBackend } from "../ingest/db/sql-backend";

/**
 * What the edge-latency targets expect of an endpoint: `warm` answers from the edge with no market
 * round trip (within /v1/usage + 3 ms at any distance), `one-trip` makes exactly one (within the
 * distance + its own time next door + 3 ms).
 */
export type TargetKind = "warm" | "one-trip";

/** One benchmarked endpoint. `auth` requests rotate over many accounts' keys so the 300/min limit is never the bottleneck. */
export interface Target {
  name: string;
  /** A path, or one per request (e.g. a new query each time, so nothing is served from a cache). */
  path: string | ((i: number) => string);
  headers?: Record<string, string>;
  auth?: boolean;
  /** Expected status when it is not 200 (e.g. a conditional GET). */
  expect?: number;
  /** A JSON body, sent with POST. */
  body?: unknown;
  kind?: TargetKind;
}

/**
 * What a repeated request to a path should cost, read from its route's own `caching`: a route
 * served from the snapshot is `warm`, one that reads on every request `one-trip`.
 */
function kindOf(path: string, method: HttpMethod = "get"): TargetKind {
  const pathname = path.split("?")[0] as string;
  const route = routes.find((r) => r.method === method && pathPattern(r.path).test(pathname));
  if (!route) throw new Error(`no route answers ${method.toUpperCase()} ${pathname}`);
  return route.caching === "snapshot" ? "warm" : "one-trip";
}

export const FLOOR: Target = { name: "empty route (floor)", path: "/__bench/floor", expect: 204 };
/** The reference of the warm targets: authentication and limits, no market data. */
export const USAGE: Target = { name: "GET /v1/usage (auth + limits)", path: "/v1/usage", auth: true };

/** Endpoints that do not depend on the dataset. */
export const TARGETS: Target[] = [
  { name: "GET /health", path: "/health" },
  { name: "GET /public/plans", path: "/public/plans" },
  { name: "GET /openapi.json", path: "/openapi.json" },
  { name: "GET /openapi.json (304)", path: "/openapi.json", headers: { "If-None-Match": "*" }, expect: 304 },
  { name: "GET /ready", path: "/ready" },
  { name: "GET /v1/auth/verify (auth + limits)", path: "/v1/auth/verify", auth: true },
  USAGE,
];

export interface MarketTargets {
  targets: Target[];
  largest: string;
  batch: string[];
}

/** The three screens: a wheel (income) screen, a broad activity screen and a text screen. */
export const SCREENS: Record<string, unknown> = {
  wheel: {
    type: "put",
    dteMin: 20,
    dteMax: 45,
    deltaMin: -0.3,
    deltaMax: -0.15,
    openInterestMin: 100,
    yieldPercentMin: 1,
    filters: [
      { field: "earnings", operation: "excludeEarnings" },
      { field: "annualizedReturn", operation: "sort", value: "desc" },
    ],
  },
  broad: { type: "call", filters: [{ field: "volumeZScore30d", operation: "sort", value: "desc" }] },
  text: {
    filters: [
      { field: "sector", operation: "like", value: "tech" },
      { field: "premium", operation: "sort", value: "desc" },
    ],
  },
};

/** The market endpoints on the loaded dataset: the chain of the underlying with the most contracts, a batch of 20 of its contracts, the busiest flow. */
export async function marketTargets(backend: SqlBackend): Promise<MarketTargets> {
  const { rows } = await backend.typedQuery("select underlying, count(*)::int as n from option_quotes group by 1 order by 2 desc limit 1");
  const largest = rows[0]?.underlying as string;
  const picked = await backend.typedQuery(
    "select option_symbol from option_quotes where underlying = $1 order by md5(option_symbol) limit 20",
    [largest],
  );
  const batch = picked.rows.map((r) => r.option_symbol as string);
  console.log(`largest underlying: ${largest} (${rows[0]?.n} contracts)`);
  // Flow: the three newest sessions (market-wide) and the ticker with the most prints in the newest one.
  const sessions = (await backend.typedQuery("select distinct session_date::text as d from flow_prints order by 1 desc limit 3")).rows.map(
    (r) => r.d as string,
  );
  const busiest = (
    await backend.typedQuery(
      "select ticker, count(*)::int as n from flow_prints where session_date = (select max(session_date) from flow_prints) group by 1 order by 2 desc limit 1",
    )
  ).rows[0];
  console.log(`flow: sessions ${sessions.join(", ")}; busiest ticker ${busiest?.ticker} (${busiest?.n} prints in the newest session)`);
  const today = todayInNewYork();
  const judged = (name: string, path: string): Target => ({ name, path, auth: true, kind: kindOf(path) });
  return {
    largest,
    batch,
    targets: [
      judged(`GET /v1/chain/${largest} (defaults)`, `/v1/chain/${largest}`),
      {
        name: `GET /v1/chain/${largest} (new query)`,
        path: (i) => `/v1/chain/${largest}?strikeMin=${(i / 1000).toFixed(3)}`,
        auth: true,
        kind: "one-trip",
      },
      judged("GET /v1/options/quotes (batch of 20)", `/v1/options/quotes?symbols=${batch.join(",")}`),
      judged(`GET /v1/options/quotes/{one}`, `/v1/options/quotes/${batch[0]}`),
      judged(`GET /v1/expirations/${largest}`, `/v1/expirations/${largest}`),
      judged("GET /v1/flow (market-wide, 3 sessions)", `/v1/flow?from=${sessions.at(-1)}&to=${sessions[0]}`),
      judged(`GET /v1/flow?symbol=${busiest?.ticker}`, `/v1/flow?symbol=${busiest?.ticker}`),
      judged(`GET /v1/flow/net?symbol=${busiest?.ticker}`, `/v1/flow/net?symbol=${busiest?.ticker}`),
      judged("GET /v1/earnings (90 days)", `/v1/earnings?from=${today}&to=${addDays(today, 89)}`),
      judged(`GET /v1/iv/${largest}`, `/v1/iv/${largest}`),
      judged("GET /v1/stocks/top-iv", "/v1/stocks/top-iv"),
      judged("GET /v1/stocks/top-ivr", "/v1/stocks/top-ivr"),
      judged(`GET /v1/gex/${largest}?maxDte=730`, `/v1/gex/${largest}?maxDte=730`),
      {
        name: `GET /v1/gex/${largest}?maxDte=730 (new window)`,
        path: (i) => `/v1/gex/${largest}?maxDte=730&minDte=${i % 700}`,
        auth: true,
      },
      judged(`GET /v1/gex/${largest}/heatmap?maxDte=730`, `/v1/gex/${largest}/heatmap?maxDte=730`),
      ...Object.entries(SCREENS).map(([name, body]): Target => ({
        name: `POST /v1/contracts/screen (${name})`,
        path: "/v1/contracts/screen",
        body,
        auth: true,
        kind: kindOf("/v1/contracts/screen", "post"),
      })),
    ],
  };
}
