import { z } from "zod";

export const FeedLagSchema = z.object({
  feed: z.string(),
  schema: z.string().describe("The vendor schema: definition, statistics, cbbo-1m, tcbbo."),
  position: z.string().describe("UTC timestamp: the newest receive time whose records are all stored."),
  lagSeconds: z
    .number()
    .describe("Seconds from `position` to now. Informational: lag alone never fails readiness (statistics arrive once a day)."),
});
export type FeedLag = z.infer<typeof FeedLagSchema>;

/** The ingestor's positions, one row per feed and schema (`ts_recv` as text: nanoseconds overflow a double). */
export const FEED_POSITIONS = "select feed, schema, ts_recv::text as ts_recv from feed_positions order by feed, schema";

/** Rows of `FEED_POSITIONS` as each schema's position and its lag behind `now` (epoch ms). */
export function feedLags(rows: Record<string, unknown>[], now: number): FeedLag[] {
  return rows.map((r) => {
    const at = Number(BigInt(r.ts_recv as string) / 1_000_000n);
    return {
      feed: r.feed as string,
      schema: r.schema as string,
      position: new Date(at).toISOString(),
      lagSeconds: Math.max(0, (now - at) / 1000),
    };
  });
}
