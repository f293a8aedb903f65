import { z } from "zod";
import { requestNow, requestSettlementPhase, requestToday } from "../../http/request-clock";
import { formatOcc, parseOcc } from "../../domain/occ";
import { STANDARD_LIMITS } from "../../domain/plans";
import { ApiError } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { readOptionQuotes } from "../../market/option-quotes";
import { parameterKey } from "../../edge-cache/derived-cache";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { tradedScope } from "../../market/scopes";
import { OptionQuoteSchema, toOptionQuote } from "./option-contract";

/** What the description states: the limit of the customer plans. */
const MAX_BATCH_SYMBOLS = STANDARD_LIMITS.batchQuoteSymbols;

export const BatchQuotesSchema = z.object({
  quotes: z.array(OptionQuoteSchema).describe("Order unspecified."),
  missing: z.array(z.string()).describe("Requested symbols that were not found, as sent."),
});
export type BatchQuotes = z.infer<typeof BatchQuotesSchema>;

/**
 * Comma-separated OCC symbols as the batch route reads them: canonical symbol → as sent (the first
 * spelling of duplicates), and their roots; none, a bad one or more than `max` distinct is the 400.
 */
export function occSymbols(text: string | undefined, max: number): { bySymbol: Map<string, string>; roots: Set<string> } {
  const requested = (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (requested.length === 0) throw new ApiError("missing_symbol", "Query parameter 'symbols' is required: comma-separated OCC symbols.");
  const bySymbol = new Map<string, string>();
  const roots = new Set<string>();
  for (const sent of requested) {
    const contract = parseOcc(sent);
    if (!contract)
      throw new ApiError("invalid_parameter", `Invalid query parameter 'symbols': '${sent.slice(0, 32)}' is not an OCC option symbol.`);
    const canonical = formatOcc(contract);
    roots.add(contract.root);
    if (!bySymbol.has(canonical)) bySymbol.set(canonical, sent);
  }
  if (bySymbol.size > max) throw new ApiError("too_many_symbols", `At most ${max} distinct symbols per request; got ${bySymbol.size}.`);
  return { bySymbol, roots };
}

export const batchQuotesRoute = defineRoute({
  method: "get",
  path: "/v1/options/quotes",
  operationId: "getOptionQuotes",
  summary: "Batch option quotes",
  description: `Up to ${MAX_BATCH_SYMBOLS} distinct OCC symbols; duplicates are queried and returned once; one request however many symbols.`,
  tags: ["Quotes and options"],
  access: "entitled",
  caching: "snapshot",
  query: z.object({ symbols: z.string().max(2_000).optional().describe(`Comma-separated OCC symbols, at most ${MAX_BATCH_SYMBOLS}.`) }),
  response: { description: "Quotes found and symbols missing.", schema: BatchQuotesSchema },
  errors: ["missing_symbol", "too_many_symbols"],
  handler: async (c, { query }) => {
    const { bySymbol, roots } = occSymbols(query.symbols, c.get("account").limits.batchQuoteSymbols);
    const symbols = [...bySymbol.keys()].sort();
    return snapshotResponse(c, {
      name: await parameterKey("option-quotes", symbols),
      // Greeks are served until each contract's settlement instant: the body differs before and after it.
      vary: `settled=${requestSettlementPhase(c)}`,
      scopes: [...roots, ...[...roots].map(tradedScope)],
      compute: (read) => readOptionQuotes(read, symbols),
      render: ({ value: rows }): BatchQuotes => {
        const today = requestToday(c);
        const at = requestNow(c);
        const found = new Set(rows.map((r) => r.optionSymbol));
        return {
          quotes: rows.map((r) => toOptionQuote(r, today, at)),
          missing: [...bySymbol].filter(([canonical]) => !found.has(canonical)).map(([, sent]) => sent),
        };
      },
    });
  },
});
