import { z } from "zod";
import { GEX_DISCLAIMER, gexProfile } from "../../analytics/gex";
import { tickerParam } from "../../domain/symbols";
import { isoTimestamp } from "../../db/timestamps";
import { unknownSymbol } from "../../http/errors";
import { requestMinute, requestToday } from "../../http/request-clock";
import { defineRoute } from "../../http/route";
import { gexBookAt, readGexInputs, type GexInputs } from "../../market/gamma-exposure";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { gexWindow, gexWindowParams } from "./gex-window";

const regime = z.enum(["positive", "negative", "neutral"]);
const dollarsPerPercent = "Dollars per 1% move of the underlying, rounded to the dollar.";

export const GexStrikeSchema = z.object({
  strike: z.number(),
  callGex: z.number().min(0).describe(`${dollarsPerPercent} Calls, dealers long: ≥ 0.`),
  putGex: z.number().max(0).describe(`${dollarsPerPercent} Puts, dealers short: ≤ 0.`),
  netGex: z.number().describe(dollarsPerPercent),
});

export const GexProfileSchema = z.object({
  symbol: z.string(),
  stockPrice: z.number().describe("Spot, USD."),
  asOf: z.iso.datetime().nullable().describe("Snapshot time of the chain."),
  regime: regime.describe("Sign of net dealer gamma: positive, negative or neutral (zero)."),
  flipRegime: regime.nullable().describe("positive when stockPrice > gammaFlip, negative when <, neutral when equal; null without a flip."),
  netGex: z.number().describe(`Signed. ${dollarsPerPercent}`),
  totalCallGex: z.number().describe(dollarsPerPercent),
  totalPutGex: z.number().describe(dollarsPerPercent),
  gammaFlip: z
    .number()
    .nullable()
    .describe(
      "Spot level nearest the current one where net GEX changes sign (sticky-strike re-pricing, ±20% of spot), USD; null when none.",
    ),
  callWallStrike: z.number().nullable().describe("Strike with the highest positive net GEX; falls back to the highest absolute net GEX."),
  putWallStrike: z.number().nullable().describe("Strike with the most negative net GEX; falls back to the highest absolute net GEX."),
  strikes: z.array(GexStrikeSchema).describe("Ascending strike; each sums every selected expiration and root."),
  disclaimer: z.string(),
});
export type GexProfileBody = z.infer<typeof GexProfileSchema>;

/** The profile of an underlying's window as of `at` (the `gex` stream sends it without the strikes). */
export function gexProfileBody(symbol: string, inputs: GexInputs, asOf: string | null, at: Date): GexProfileBody {
  const { spot, book } = gexBookAt(inputs, at);
  return { symbol, stockPrice: spot, asOf: isoTimestamp(asOf), ...gexProfile(book, spot), disclaimer: GEX_DISCLAIMER };
}

/** The snapshot-derived value both GEX routes compute from (per symbol, window and snapshot version). */
export const gexInputsName = (symbol: string, from: string, to: string) => `gex-inputs:${symbol}:${from}:${to}`;

export const gexRoute = defineRoute({
  method: "get",
  path: "/v1/gex/{symbol}",
  operationId: "getGex",
  summary: "Gamma exposure profile",
  description:
    "Dealer gamma exposure per strike over the selected expirations (every root, AM- and PM-settled), totals, regime, gamma flip and walls. " +
    "Exposures are as of the request, to the minute: time to expiry runs from now, and a contract past its settlement " +
    "(the open for AM-settled roots, the close for PM-settled ones) carries none. " +
    "Method and conventions: docs/gex.md. Default window: 0 to 60 days to expiration.",
  tags: ["Gamma exposure"],
  access: "entitled",
  caching: "snapshot",
  params: z.object({ symbol: tickerParam }),
  query: z.object(gexWindowParams),
  response: { description: "GEX profile.", schema: GexProfileSchema },
  errors: ["not_found", "invalid_range"],
  handler: (c, { params, query }) => {
    const { from, to } = gexWindow(query, requestToday(c));
    const at = requestMinute(c);
    return snapshotResponse(c, {
      name: gexInputsName(params.symbol, from, to),
      // Exposures are as of the request's minute: the inputs are cached per snapshot, the body per minute.
      vary: `at=${at.toISOString()}`,
      scopes: [params.symbol],
      compute: (read) => readGexInputs(read, params.symbol, from, to),
      render: ({ snapshot, value }): GexProfileBody => {
        if (!value.exists) throw unknownSymbol(params.symbol);
        return gexProfileBody(params.symbol, value, snapshot.asOf, at);
      },
    });
  },
});
