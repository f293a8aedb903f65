/**
 * A first session with the SDK: `ODS_API_KEY=… npx tsx sdk/examples/first-calls.ts` (with `npm run dev`
 * running, `ODS_API_KEY=$(cat .dev/demo-api-key)`; `ODS_BASE_URL` defaults to http://127.0.0.1:8787).
 */
import { createClient, OdsApiError } from "../src/index.js";

const apiKey = process.env.ODS_API_KEY;
if (!apiKey) throw new Error("Set ODS_API_KEY to an API key (npm run dev saves one to .dev/demo-api-key).");
const client = createClient({ baseUrl: process.env.ODS_BASE_URL ?? "http://127.0.0.1:8787", apiKey });

const { data: iv, meta } = await client.getIvContext({ symbol: "SPY" });
console.log(
  `SPY IV ${iv.currentIV}% (IV rank ${iv.ivr ?? "n/a"}), as of ${iv.asOf}; ${meta.rateLimit?.remaining} requests left this minute`,
);

// Every contract of the next two weeks, 50 a page: the iterator follows nextCursor.
let count = 0;
for await (const contract of client.paginate.getChain({ symbol: "SPY", maxDte: 14, limit: 50 })) {
  if (count++ < 3) console.log(contract.optionSymbol, contract.bid, contract.ask, contract.delta);
}
console.log(`${count} SPY contracts within 14 days`);

try {
  await client.getEquityQuote({ symbol: "not a symbol" });
} catch (err) {
  if (!(err instanceof OdsApiError)) throw err;
  console.log(`refused: ${err.status} ${err.code} (${err.message}), request ${err.request_id}`);
}
