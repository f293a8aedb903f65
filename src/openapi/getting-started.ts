/**
 * The introduction `/docs` shows above the reference (Redoc renders `info.description` as
 * Markdown): the three ways to call the API, as README.md gives them.
 */
export const GETTING_STARTED = `US equity option chains with Greeks, quotes, screener, calendars, IV context, dealer gamma exposure and options flow.

## Three ways to call it

Every way takes the same API key (create one in the [dashboard](/dashboard)) and counts against the same limits.

**HTTP**: \`curl --compressed -H "Authorization: Bearer $ODS_API_KEY" "<base_url>/v1/chain/SPY?maxDte=14&limit=5"\`

**TypeScript SDK** (\`sdk/\` in the repository; Node 20+, browsers, Workers): build and install it with
\`cd sdk && npm install && npm pack\`, then \`npm install <repository>/sdk/options-data-service-sdk-1.0.0.tgz\` in your project.

\`\`\`ts
import { createClient } from "@options-data-service/sdk";
const ods = createClient({ baseUrl: "<base_url>", apiKey: process.env.ODS_API_KEY! });
const { data, meta } = await ods.getChain({ symbol: "SPY", maxDte: 14 });
for await (const contract of ods.paginate.getChain({ symbol: "SPY" })) console.log(contract.optionSymbol);
\`\`\`

**MCP** (AI assistants): the Model Context Protocol over Streamable HTTP at \`/mcp\`, with 14 read-only tools (chain, quotes,
screener, IV, GEX, flow, calendars). Add it to an MCP client's configuration (Claude Code's \`.mcp.json\`, Cursor's \`mcp.json\`):

\`\`\`json
{
  "mcpServers": {
    "options-data": {
      "type": "http",
      "url": "<base_url>/mcp",
      "headers": { "Authorization": "Bearer <API key>" }
    }
  }
}
\`\`\`

Each tool call is one request against the per-minute limit; an API error comes back as a tool error with the API's code.`;
