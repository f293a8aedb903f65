import { z } from "zod";
import { requestNow, requestSettlementPhase, requestToday } from "../../http/request-clock";
import { formatOcc, parseOcc } from "../../domain/occ";
import { ApiError } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { readOptionQuotes } from "../../market/option-quotes";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { tradedScope } from "../../market/scopes";
import { OptionQuoteSchema, toOptionQuote, type OptionQuote } from "./option-contract";

export const optionQuoteRoute = defineRoute({
  method: "get",
  path: "/v1/options/quotes/{optionSymbol}",
  operationId: "getOptionQuote",
  summary: "Option contract quote",
  description: "One contract by OCC symbol, compact (`AAPL250117C00175000`) or space-padded to 21 characters (URL-encoded).",
  tags: ["Quotes and options"],
  access: "entitled",
  caching: "snapshot",
  params: z.object({ optionSymbol: z.string().min(1).max(32).describe("OCC symbol.") }),
  response: { description: "The contract.", schema: OptionQuoteSchema },
  errors: ["not_found"],
  handler: async (c, { params }) => {
    const contract = parseOcc(params.optionSymbol);
    if (!contract) {
      throw new ApiError(
        "invalid_parameter",
        `Invalid path parameter 'optionSymbol': '${params.optionSymbol.slice(0, 32)}' is not an OCC option symbol.`,
      );
    }
    const symbol = formatOcc(contract);
    return snapshotResponse(c, {
      name: `option-quote:${symbol}`,
      // Greeks are served until the contract's settlement instant: the body differs before and after it.
      vary: `settled=${requestSettlementPhase(c)}`,
      // A root's scopes: every writer bumps the roots of the contracts it touches (trades, its traded scope).
      scopes: [contract.root, tradedScope(contract.root)],
      compute: (read) => readOptionQuotes(read, [symbol]),
      render: ({ value: [row] }): OptionQuote => {
        if (!row) throw new ApiError("not_found", `No option contract ${symbol}.`);
        return toOptionQuote(row, requestToday(c), requestNow(c));
      },
    });
  },
});
