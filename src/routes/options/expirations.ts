import { z } from "zod";
import { addDays, daysBetween, todayInNewYork } from "../../domain/calendar";
import { tickerParam } from "../../domain/symbols";
import { database } from "../../db/client";
import { isoTimestamp } from "../../db/timestamps";
import { ApiError } from "../../http/errors";
import { aliased, intParam } from "../../http/query-params";
import { defineRoute } from "../../http/route";
import { expirationsQuery, snapshotQuery, underlyingQuery } from "../../market/queries";

export const ExpirationsSchema = z.object({
  symbol: z.string(),
  asOf: z.iso.datetime().nullable().describe("Snapshot time."),
  expirations: z.array(z.object({ expiration: z.iso.date(), dte: z.int() })).describe("Chronological."),
});

const DEFAULT_MAX_DTE = 365;
const CACHE_TTL_SECONDS = 86_400;

interface CachedSchedule {
  exists: boolean;
  expirations: string[];
}

const dte = (description: string, defaultValue?: number) => intParam(0, 3_650, { description, default: defaultValue });

export const expirationsRoute = defineRoute({
  method: "get",
  path: "/v1/expirations/{symbol}",
  operationId: "getExpirations",
  summary: "Expiration schedule",
  tags: ["Quotes and options"],
  access: "entitled",
  params: z.object({ symbol: tickerParam }),
  query: z.object({
    minDte: dte("Minimum days to expiration (default 0). Alias: dteMin.", 0),
    dteMin: dte("Alias of minDte."),
    maxDte: dte(`Maximum days to expiration (default ${DEFAULT_MAX_DTE}; 0 means unset). Alias: dteMax.`, DEFAULT_MAX_DTE),
    dteMax: dte("Alias of maxDte."),
  }),
  responses: { 200: { description: "Listed expirations in the DTE window.", schema: ExpirationsSchema } },
  errors: [404],
  handler: async (c, { params, query }) => {
    const minDte = aliased(query, "minDte", "dteMin") ?? 0;
    const maxDte = aliased(query, "maxDte", "dteMax") || DEFAULT_MAX_DTE;
    if (maxDte < minDte) throw new ApiError("invalid_range", `maxDte (${maxDte}) is below minDte (${minDte}).`);
    const db = database(c.get("config").MARKET_DATABASE_URL);
    const [snapshot] = await snapshotQuery(db);
    // Cached per market snapshot: a new load has a new version, so stale entries are never read.
    const key = `expirations:v${snapshot?.version ?? 0}:${params.symbol}`;
    let schedule = await c.env.MARKET_CACHE.get<CachedSchedule>(key, "json");
    if (!schedule) {
      const [underlying, rows] = await db.batch([underlyingQuery(db, params.symbol), expirationsQuery(db, params.symbol)]);
      schedule = { exists: underlying.length > 0, expirations: rows.map((r) => r.expiration) };
      c.executionCtx.waitUntil(c.env.MARKET_CACHE.put(key, JSON.stringify(schedule), { expirationTtl: CACHE_TTL_SECONDS }));
    }
    if (!schedule.exists) throw new ApiError("not_found", `Unknown symbol ${params.symbol}.`);
    const today = todayInNewYork();
    const from = addDays(today, minDte);
    const to = addDays(today, maxDte);
    return c.json({
      symbol: params.symbol,
      asOf: isoTimestamp(snapshot?.asOf ?? null),
      expirations: schedule.expirations.filter((e) => e >= from && e <= to).map((e) => ({ expiration: e, dte: daysBetween(today, e) })),
    });
  },
});
