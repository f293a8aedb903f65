import { z } from "zod";
import { GexHeatmapSchema, type GexHeatmapBody } from "../routes/gamma-exposure/heatmap";
import type { GexProfileBody } from "../routes/gamma-exposure/gex";
import type { NetFlow } from "../routes/flow/net-flow";

/** Strikes of a GEX profile kept for an assistant: the nearest spot. */
export const PROFILE_STRIKES = 40;
/** Heatmap cells kept: the largest by absolute net exposure. */
export const HEATMAP_CELLS = 30;
/** Net-flow points kept: evenly spaced through the window, the last always among them. */
export const NET_FLOW_POINTS = 60;

/** A GEX profile with its strikes cut to the `PROFILE_STRIKES` nearest spot (the walls and flip are of all strikes). */
export function nearSpotProfile(body: GexProfileBody): GexProfileBody {
  if (body.strikes.length <= PROFILE_STRIKES) return body;
  const nearest = [...body.strikes]
    .sort((a, b) => Math.abs(a.strike - body.stockPrice) - Math.abs(b.strike - body.stockPrice))
    .slice(0, PROFILE_STRIKES)
    .sort((a, b) => a.strike - b.strike);
  return { ...body, strikes: nearest };
}

const Cell = GexHeatmapSchema.shape.cells.element;

/** What an assistant gets of a heatmap (up to 5,000 cells): the route's header fields, totals per expiration and the largest cells. */
export const HeatmapSummarySchema = GexHeatmapSchema.omit({ cells: true, truncated: true }).extend({
  cellCount: z.int().describe("Cells of the full heatmap."),
  truncated: z.boolean().describe("The heatmap itself hit its 5,000-cell cap."),
  byExpiration: z
    .array(Cell.omit({ strike: true }))
    .describe("Call, put and net GEX summed over the strikes of each expiration, dollars per 1% move."),
  largestCells: z.array(Cell).describe(`The ${HEATMAP_CELLS} cells of largest absolute net GEX, largest first.`),
});
export type HeatmapSummary = z.infer<typeof HeatmapSummarySchema>;

export function heatmapSummary(body: GexHeatmapBody): HeatmapSummary {
  const { cells, truncated, ...header } = body;
  const totals = new Map<string, { expiration: string; callGex: number; putGex: number; netGex: number }>();
  for (const cell of cells) {
    const total = totals.get(cell.expiration) ?? { expiration: cell.expiration, callGex: 0, putGex: 0, netGex: 0 };
    total.callGex += cell.callGex;
    total.putGex += cell.putGex;
    total.netGex += cell.netGex;
    totals.set(cell.expiration, total);
  }
  return {
    ...header,
    cellCount: cells.length,
    truncated: truncated === true,
    byExpiration: [...totals.values()],
    largestCells: [...cells].sort((a, b) => Math.abs(b.netGex) - Math.abs(a.netGex)).slice(0, HEATMAP_CELLS),
  };
}

/** Cumulative net flow thinned to `NET_FLOW_POINTS`: each point is a running total, so any subset keeps its meaning. */
export function thinnedNetFlow(body: NetFlow): NetFlow {
  const { points } = body;
  if (points.length <= NET_FLOW_POINTS) return body;
  const step = (points.length - 1) / (NET_FLOW_POINTS - 1);
  return { ...body, points: Array.from({ length: NET_FLOW_POINTS }, (_, i) => points[Math.round(i * step)]!) };
}
