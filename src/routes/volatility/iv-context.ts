import { z } from "zod";
import { ivRank } from "../../analytics/iv-rank";
import { tickerParam } from "../../domain/symbols";
import { unknownSymbol } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { readIvInputs } from "../../market/volatility";
import { ivPercent } from "./iv-units";

export const IvContextSchema = z.object({
  symbol: z.string(),
  currentIV: z.number().describe("30-day constant-maturity ATM IV of the loaded session, percent; 0 when missing."),
  ivr: z
    .number()
    .min(0)
    .max(100)
    .nullable()
    .describe("IV rank against the 52-week high and low (today included), 0-100; null when undefined."),
  ivp: z
    .number()
    .min(0)
    .max(100)
    .nullable()
    .describe("Share of the prior 52 weeks' sessions with IV strictly below today's, 0-100; null below 20 observations."),
  ivHigh52w: z.number().describe("Highest IV of the 52-week window, percent; 0 when missing."),
  ivLow52w: z.number().describe("Lowest IV of the 52-week window, percent; 0 when missing."),
  asOf: z.iso.date().nullable().describe("The session ranked, YYYY-MM-DD."),
});
export type IvContext = z.infer<typeof IvContextSchema>;

export const ivContextRoute = defineRoute({
  method: "get",
  path: "/v1/iv/{symbol}",
  operationId: "getIvContext",
  summary: "IV context",
  description: "Current IV with its 52-week rank, percentile, high and low. The ranked series and the window: docs/volatility.md.",
  tags: ["Volatility"],
  access: "entitled",
  caching: "snapshot",
  params: z.object({ symbol: tickerParam }),
  response: { description: "IV context.", schema: IvContextSchema },
  errors: ["not_found"],
  handler: (c, { params }) =>
    snapshotResponse(c, {
      name: `iv:${params.symbol}`,
      scopes: [params.symbol],
      compute: async (read) => {
        const { snapshot, value: inputs } = await readIvInputs(read, params.symbol);
        if (!inputs.exists) return { snapshot, value: null };
        const rank =
          inputs.sessionDate === null ? null : ivRank({ asOf: inputs.sessionDate, current: inputs.current, history: inputs.history });
        return {
          snapshot,
          value: {
            currentIV: ivPercent(inputs.current),
            ivr: rank?.ivr ?? null,
            ivp: rank?.ivp ?? null,
            ivHigh52w: ivPercent(rank?.ivHigh52w ?? null),
            ivLow52w: ivPercent(rank?.ivLow52w ?? null),
            asOf: inputs.sessionDate,
          },
        };
      },
      render: ({ value }): IvContext => {
        if (value === null) throw unknownSymbol(params.symbol);
        return { symbol: params.symbol, ...value };
      },
    }),
});
