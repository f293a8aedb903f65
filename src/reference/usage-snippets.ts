/** The three ways to use a key, for a base URL and a key (or placeholders): the dashboard and `/docs` show the same. */
export interface UsageSnippets {
  curl: string;
  sdk: string;
  mcp: string;
}

/** The SDK's package name (sdk/package.json). */
export const SDK_PACKAGE = "@options-data-service/sdk";

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
      { mcpServers: { "options-data": { type: "http", url: `${baseUrl}/mcp`, headers: { Authorization: `Bearer ${key}` } } } },
      null,
      2,
    ),
  };
}
