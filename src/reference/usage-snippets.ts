/** The three ways to use a key, for a base URL and a key (or placeholders): the dashboard and `/docs` show the same. */
export interface UsageSnippets {
  curl: string;
  sdk: string;
  /**
   * The MCP client configuration for a project's `.mcp.json` (Claude Code), a file people commit:
   * the key is not in it but read from `MCP_KEY_VARIABLE` by the client's `${VAR}` expansion.
   */
  mcp: string;
  /** Where the key goes instead: the shell line that sets `MCP_KEY_VARIABLE` for the client. */
  mcpKey: string;
  /** Push: the flow of two tickers as Server-Sent Events with curl (`/v1/stream`). */
  stream: string;
  /** The same over a WebSocket with websocat, and the subscribe message to type into it. */
  websocket: string;
}

/** The SDK's package name (sdk/package.json). */
export const SDK_PACKAGE = "@options-data-service/sdk";

/** The environment variable an MCP client's configuration reads the key from. */
export const MCP_KEY_VARIABLE = "ODS_API_KEY";

export function usageSnippets(baseUrl: string, key: string): UsageSnippets {
  return {
    curl: `curl --compressed -H "Authorization: Bearer ${key}" "${baseUrl}/v1/chain/SPY?maxDte=14&limit=5"`,
    sdk: [
      `import { createClient } from "${SDK_PACKAGE}";`,
      ``,
      `const ods = createClient({ baseUrl: "${baseUrl}", apiKey: "${key}" });`,
      `const { data, meta } = await ods.getChain({ symbol: "SPY", maxDte: 14, limit: 5 });`,
      `for await (const contract of ods.paginate.getChain({ symbol: "SPY" })) console.log(contract.optionSymbol);`,
    ].join("\n"),
    mcp: JSON.stringify(
      {
        mcpServers: {
          "options-data": { type: "http", url: `${baseUrl}/mcp`, headers: { Authorization: `Bearer \${${MCP_KEY_VARIABLE}}` } },
        },
      },
      null,
      2,
    ),
    mcpKey: `export ${MCP_KEY_VARIABLE}="${key}"`,
    stream: `curl -N -H "Authorization: Bearer ${key}" -H "Accept: text/event-stream" "${baseUrl}/v1/stream?channel=flow&tickers=SPY,QQQ&minPremium=50000"`,
    websocket: [
      `websocat -H "Authorization: Bearer ${key}" "${baseUrl.replace(/^http/, "ws")}/v1/stream"`,
      `{"type":"subscribe","id":"spy","channel":"flow","filters":{"tickers":"SPY,QQQ","minPremium":50000}}`,
    ].join("\n"),
  };
}
