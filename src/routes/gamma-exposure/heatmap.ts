import { z } from "zod";
import { gexProfile } from "../../analytics/gex";
import { gexHeatmap, HEATMAP_BAND, HEATMAP_MAX_CELLS } from "../../analytics/gex-heatmap";
import { tickerParam } from "../../domain/symbols";
import { isoTimestamp } from "../../db/timestamps";
import { unknownSymbol } from "../../http/errors";
import { orderedRange } from "../../http/input-checks";
import { numberParam } from "../../http/query-params";
import { requestMinute, requestToday } from "../../http/request-clock";
import { defineRoute } from "../../http/route";
import { gexBookAt, readGexInputs } from "../../market/gamma-exposure";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { gexInputsName, GexStrikeSchema } from "./gex";
import { gexWindow, gexWindowParams } from "./gex-window";

const HeatmapCellSchema = GexStrikeSchema.extend({ expiration: z.iso.date() });

export const GexHeatmapSchema = z.object({
  symbol: z.string(),
  stockPrice: z.number().describe("Spot, USD."),
  metric: z.enum(["net", "call", "put"]).describe("Echo of the requested metric; every cell carries all three values."),
  gammaFlip: z.number().nullable().describe("As in the GEX profile of the same window, USD."),
  callWallStrike: z.number().nullable(),
  putWallStrike: z.number().nullable(),
  asOf: z.iso.datetime().nullable().describe("Snapshot time of the chain."),
  expirations: z.array(z.iso.date()).describe("Y axis: the expirations of the returned cells, chronological."),
  cells: z.array(HeatmapCellSchema).describe("Expiration ascending, then strike ascending; only cells holding contracts with exposure."),
  truncated: z
    .literal(true)
    .optional()
    .describe(`Present only when the ${HEATMAP_MAX_CELLS}-cell cap dropped cells: whole strikes are kept nearest spot first.`),
});
export type GexHeatmapBody = z.infer<typeof GexHeatmapSchema>;

const strike = (description: string) => numberParam({ description }, { min: 0 });

export const gexHeatmapRoute = defineRoute({
  method: "get",
  path: "/v1/gex/{symbol}/heatmap",
  operationId: "getGexHeatmap",
  summary: "Gamma exposure heatmap",
  description:
    `GEX per (expiration, strike) cell. Strike band: strikeMin..strikeMax; one-sided when only one is given; spot ±${HEATMAP_BAND * 100}% when neither. ` +
    `Capped at ${HEATMAP_MAX_CELLS} cells (then truncated: true). Exposures as in the GEX profile: as of the request, to the minute; ` +
    "contracts past their settlement carry none. Default window: 0 to 60 days to expiration.",
  tags: ["Gamma exposure"],
  access: "entitled",
  caching: "snapshot",
  params: z.object({ symbol: tickerParam }),
  query: z.object({
    metric: z
      .enum(["net", "call", "put"])
      .optional()
      .meta({ description: "Echoed only (default net); cells always carry call, put and net." }),
    strikeMin: strike("Lowest strike, USD (inclusive)."),
    strikeMax: strike("Highest strike, USD (inclusive); below strikeMin gives 400 invalid_range."),
    ...gexWindowParams,
  }),
  response: { description: "GEX heatmap.", schema: GexHeatmapSchema },
  errors: ["not_found", "invalid_range"],
  handler: (c, { params, query }) => {
    const { strikeMin, strikeMax } = query;
    orderedRange(["strikeMin", strikeMin], ["strikeMax", strikeMax]);
    const { from, to } = gexWindow(query, requestToday(c));
    const at = requestMinute(c);
    return snapshotResponse(c, {
      // The profile's inputs: one cached value per window serves both routes and every band.
      name: gexInputsName(params.symbol, from, to),
      vary: `at=${at.toISOString()}`,
      scopes: [params.symbol],
      compute: (read) => readGexInputs(read, params.symbol, from, to),
      render: ({ snapshot, value }): GexHeatmapBody => {
        if (!value.exists) throw unknownSymbol(params.symbol);
        const { spot, book } = gexBookAt(value, at);
        const { gammaFlip, callWallStrike, putWallStrike } = gexProfile(book, spot);
        const map = gexHeatmap(book, spot, { strikeMin, strikeMax });
        return {
          symbol: params.symbol,
          stockPrice: spot,
          metric: query.metric ?? "net",
          asOf: isoTimestamp(snapshot.asOf),
          gammaFlip,
          callWallStrike,
          putWallStrike,
          expirations: map.expirations,
          cells: map.cells,
          ...(map.truncated ? { truncated: true as const } : {}),
        };
      },
    });
  },
});
