import { MCP_KEY_VARIABLE, SDK_PACKAGE, usageSnippets } from "../reference/usage-snippets";

const example = usageSnippets("<base_url>", "<API key>");

/**
 * The introduction `/docs` shows above the reference (Redoc renders `info.description` as
 * Markdown): the three ways to call the API, as README.md and the dashboard give them.
 */
export const GETTING_STARTED = `US equity option chains with Greeks, quotes, screener, calendars, IV context, dealer gamma exposure and options flow.

## Three ways to call it

Every way takes the same API key (create one in the [dashboard](/dashboard)) and counts against the same limits.

**HTTP**: \`${example.curl}\`

**TypeScript SDK** (\`sdk/\` in the repository; Node 20+, browsers, Workers): build and install it with
\`cd sdk && npm install && npm pack\`, then \`npm install <repository>/sdk/options-data-service-sdk-1.0.0.tgz\` in your project.

\`\`\`ts
${example.sdk}
\`\`\`

**MCP** (AI assistants): the Model Context Protocol over Streamable HTTP at \`/mcp\`, with 14 read-only tools (chain, quotes,
screener, IV, GEX, flow, calendars). Add it to an MCP client's configuration, Claude Code's \`.mcp.json\` in your project,
which is committed: the key stays out of it, read from the environment variable \`${MCP_KEY_VARIABLE}\` (Claude Code expands
\`\${VAR}\` in \`headers\`; in Cursor's \`mcp.json\` write \`\${env:${MCP_KEY_VARIABLE}}\`):

\`\`\`json
${example.mcp}
\`\`\`

Set the variable where the client starts (a shell profile or a secret manager, not the repository):
\`${example.mcpKey}\`

Each tool call is one request against the per-minute limit; an API error comes back as a tool error with the API's code.
The SDK's package is \`${SDK_PACKAGE}\`.

## Push

\`GET /v1/stream\` pushes the options flow as it prints, with \`/v1/flow\`'s filters, and resumes from any message's cursor
with nothing lost or repeated (see *Streams* below). As Server-Sent Events:

\`${example.stream}\`

Or over a WebSocket (type the subscribe message; acknowledge what you read with \`{"type":"ack","seq":n}\`):

\`\`\`
${example.websocket}
\`\`\``;
