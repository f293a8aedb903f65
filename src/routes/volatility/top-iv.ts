import { z } from "zod";
import { rankInRange } from "../../analytics/iv-rank";
import { clampToPlan } from "../../http/limit-headers";
import { intParam } from "../../http/query-params";
import { defineRoute } from "../../http/route";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { readIvRankings, type IvRankingRow } from "../../market/volatility";
import { ivPercent } from "./iv-units";
import { MARKET_IV } from "../../market/scopes";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

export const TopIvItemSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  stockIV: z.number().describe("30-day constant-maturity ATM IV, percent."),
  ivr: z.number().min(0).max(100).describe("52-week IV rank, 0-100 (0 when the 52-week range is flat)."),
  ivChange1w: z.number().describe("IV now minus IV a week ago (the latest session 7 to 13 days back), IV points; 0 when unknown."),
  marketCap: z.number().nullable().describe("USD."),
  logoUrl: z.string().describe("Image URL."),
});
export const TopIvSchema = z.object({ stocks: z.array(TopIvItemSchema) });
export type TopIv = z.infer<typeof TopIvSchema>;
export type TopIvItem = z.infer<typeof TopIvItemSchema>;

function toItem(row: IvRankingRow): TopIvItem {
  return {
    symbol: row.symbol,
    name: row.name,
    stockIV: ivPercent(row.iv),
    ivr: rankInRange(row.iv, row.high, row.low) ?? 0,
    ivChange1w: row.weekAgo === null ? 0 : ivPercent(row.iv - row.weekAgo),
    marketCap: row.marketCap,
    logoUrl: row.logoUrl,
  };
}

/** Both rankings' first 100, computed once per version of the session's IVs; ties end on the symbol. */
function rankings(items: TopIvItem[]): { iv: TopIvItem[]; ivr: TopIvItem[] } {
  const top = (key: "stockIV" | "ivr") =>
    [...items].sort((a, b) => b[key] - a[key] || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0)).slice(0, MAX_LIMIT);
  return { iv: top("stockIV"), ivr: top("ivr") };
}

function rankingRoute(ranking: "iv" | "ivr", path: string, operationId: string, summary: string, order: string) {
  return defineRoute({
    method: "get",
    path,
    operationId,
    summary,
    description: `Stocks ${order}; IV above 200% is excluded; ties in symbol order. Series and window: docs/volatility.md.`,
    tags: ["Volatility"],
    access: "entitled",
    caching: "snapshot",
    query: z.object({
      limit: intParam(1, Number.MAX_SAFE_INTEGER, {
        description: `Items, 1-${MAX_LIMIT} (default ${DEFAULT_LIMIT}); above ${MAX_LIMIT} silently capped; clamped to the plan's maximum rows with X-Limit-Clamped: true.`,
        default: DEFAULT_LIMIT,
      }),
    }),
    response: { description: "Ranked stocks.", schema: TopIvSchema },
    errors: [],
    handler: (c, { query }) => {
      const limit = clampToPlan(c, Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT), c.get("account").limits.maxRows);
      return snapshotResponse(c, {
        name: "iv-rankings",
        scopes: [MARKET_IV],
        compute: async (read) => {
          const { snapshot, value: rows } = await readIvRankings(read);
          return { snapshot, value: rankings(rows.map(toItem)) };
        },
        vary: `limit=${limit}`,
        render: ({ value }): TopIv => ({ stocks: value[ranking].slice(0, limit) }),
      });
    },
  });
}

export const topIvRoute = rankingRoute("iv", "/v1/stocks/top-iv", "getTopIv", "Top IV stocks", "ranked by highest IV");
export const topIvrRoute = rankingRoute(
  "ivr",
  "/v1/stocks/top-ivr",
  "getTopIvr",
  "Top IV-rank stocks",
  "ranked by highest 52-week IV rank",
);
