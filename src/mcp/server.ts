import type { Context, Hono } from "hono";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AppEnv } from "../app-env";
import { meteredGate } from "../access/gates";
import { limitBody } from "../http/body-limit";
import { ApiError } from "../http/errors";
import { API_VERSION } from "../version";
import { mcpBody } from "./batch";
import { callTool } from "./dispatch";
import { toolInputSchema } from "./input-schema";
import { MCP_TOOLS, type McpTool } from "./tools";

const byName = new Map<string, McpTool>(MCP_TOOLS.map((tool) => [tool.name, tool]));

let listed: Tool[] | undefined;
/** The tool list, derived once per isolate from the routes' contracts. */
function toolList(): Tool[] {
  listed ??= MCP_TOOLS.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: toolInputSchema(tool),
    annotations: { title: tool.route.summary, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }));
  return listed;
}

/** A server for one HTTP request (stateless): every message stands alone, so any isolate can answer any request. */
function mcpServer(app: Hono<AppEnv>, c: Context<AppEnv>): Server {
  const server = new Server(
    { name: "options-data-service", version: API_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "US equity options market data. Implied volatility is in percent (22.37 means 22.37%), gamma exposure in dollars per 1% move, prices in USD. " +
        "Results carry `asOf`; lists are paged (`cursor`, `page`). Every message counts as one API request against the key's per-minute limit, " +
        "and a tool call one more (the API request it runs).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(app, c, tool, request.params.arguments ?? {});
  });
  return server;
}

/** Answers one `/mcp` request: its body checked and its further messages counted, then the MCP server's answer. */
async function answer(app: Hono<AppEnv>, c: Context<AppEnv>): Promise<Response> {
  const body = mcpBody(await c.req.text());
  if (body.count > 1) await c.var.meter(body.count - 1);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await mcpServer(app, c).connect(transport);
  return transport.handleRequest(c.req.raw, { parsedBody: body.messages });
}

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless and answered as JSON. Every
 * message counts as a request (the first before the body is read); each tool call then runs its
 * REST route through `app`, and counts again there.
 */
export function mountMcp(app: Hono<AppEnv>): void {
  app.post("/mcp", meteredGate, limitBody, (c) => answer(app, c));
  // Stateless: no stream to open (GET) and no session to end (DELETE).
  app.all("/mcp", (c) => {
    throw new ApiError("method_not_allowed", `Method ${c.req.method} is not allowed here; allowed: POST.`, { headers: { Allow: "POST" } });
  });
}
