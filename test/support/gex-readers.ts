import { gexRoute } from "../../src/routes/gamma-exposure/gex";
import { gexHeatmapRoute } from "../../src/routes/gamma-exposure/heatmap";
import { contractBody } from "./contract";
import { call } from "./worker";

/** SPY's GEX profile and any symbol's heatmap, read through their contracts with the key options `auth()` returns. */
export function gexReaders(auth: () => RequestInit) {
  const profile = async (query: string) => contractBody(gexRoute, await call(`/v1/gex/SPY${query}`, auth()));
  const heatmap = async (symbol: string, query: string) =>
    contractBody(gexHeatmapRoute, await call(`/v1/gex/${symbol}/heatmap${query}`, auth()));
  return { profile, heatmap };
}
