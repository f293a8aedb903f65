import type { Context, Hono } from "hono";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AppEnv } from "../app-env";
import { errorEnvelope, internalError, type ErrorEnvelope } from "../http/errors";
import { logFailure } from "../http/failure-log";
import type { McpTool } from "./tools";

/** Headers of the MCP request that describe it, not the caller: the REST request sets its own. */
const NOT_FORWARDED = [
  "content-length",
  "content-type",
  "accept",
  "accept-encoding",
  "x-request-id",
  "mcp-session-id",
  "mcp-protocol-version",
];

type Args = Record<string, unknown>;

/** `encodeURIComponent` throws on a lone surrogate: replaced, it reaches the route, whose validation answers it. */
const wellFormed = (text: string) => text.replace(/\p{Cs}/gu, "\uFFFD");

/** A query value as a REST client would send it: lists comma-separated. */
const queryText = (value: unknown) =>
  Array.isArray(value) ? value.join(",") : typeof value === "object" ? JSON.stringify(value) : String(value);

/** The tool's page size: its default when not given, its maximum when asked for more; anything else is the route's to judge. */
function sized(tool: McpTool, args: Args): Args {
  if (!tool.size) return args;
  const { param, max } = tool.size;
  const value = args[param];
  if (value === undefined || value === null) return { ...args, [param]: tool.size.default };
  return Number(value) > max ? { ...args, [param]: max } : args;
}

/** The REST request a tool call stands for: same credentials and client address, path and query (or body) from the arguments. */
function restRequest(c: Context<AppEnv>, tool: McpTool, args: Args): Request {
  const route = tool.route;
  const rest: Args = { ...args };
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(value === undefined || value === null ? "" : wellFormed(String(value)));
  });
  const url = new URL(path, c.req.url);
  const headers = new Headers(c.req.raw.headers);
  for (const name of NOT_FORWARDED) headers.delete(name);
  if (route.body) {
    headers.set("Content-Type", "application/json");
    return new Request(url, { method: route.method.toUpperCase(), headers, body: JSON.stringify(rest) });
  }
  for (const [name, value] of Object.entries(rest)) if (value !== undefined && value !== null) url.searchParams.set(name, queryText(value));
  return new Request(url, { method: route.method.toUpperCase(), headers });
}

/** An API error as a tool error: the API's envelope, in the text and as `structuredContent`. */
function toolError(error: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(error) }], structuredContent: error };
}

/** A REST answer's error: its envelope, and what a caller needs to act on it. */
function restError(body: unknown, res: Response): CallToolResult {
  const envelope = (body ?? {}) as Partial<ErrorEnvelope>;
  const retryAfter = res.headers.get("Retry-After");
  return toolError({
    error: envelope.error ?? "internal_error",
    message: envelope.message ?? `HTTP ${res.status}`,
    status: res.status,
    timestamp: envelope.timestamp ?? new Date().toISOString(),
    request_id: envelope.request_id ?? res.headers.get("X-Request-ID"),
    ...(envelope.required_plan ? { required_plan: envelope.required_plan } : {}),
    ...(retryAfter ? { retry_after_seconds: Number(retryAfter) } : {}),
  });
}

/** The tool's answer from its route's: summarised where the tool says so, with `asOf`. */
async function toolResult(tool: McpTool, res: Response): Promise<CallToolResult> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: reported below as the status it came with.
  }
  if (!res.ok || body === null) return restError(body, res);
  const shrunk = tool.shrink ? tool.shrink(body as never) : body;
  const result = (tool.asOf ? { ...(shrunk as object), asOf: tool.asOf(body as never) } : shrunk) as Record<string, unknown>;
  return {
    content: [{ type: "text", text: JSON.stringify(result) }],
    structuredContent: result,
    _meta: {
      request_id: res.headers.get("X-Request-ID"),
      rate_limit_remaining: Number(res.headers.get("X-RateLimit-Remaining")),
      limit_clamped: res.headers.get("X-Limit-Clamped") === "true",
    },
  };
}

/**
 * Runs a tool call as the REST request of its route, through the whole app: authentication,
 * entitlement, the rate limit and in-flight cap (one request per call), validation, caches. A
 * failure of the tool itself is logged and answered as the API answers its own: a 500
 * `internal_error` envelope under the `/mcp` request's id, never the exception.
 */
export async function callTool(app: Hono<AppEnv>, c: Context<AppEnv>, tool: McpTool, args: Args): Promise<CallToolResult> {
  try {
    return await toolResult(tool, await app.fetch(restRequest(c, tool, sized(tool, args)), c.env, c.executionCtx));
  } catch (err) {
    logFailure(c.var.requestId, `/mcp ${tool.name}`, err);
    return toolError(errorEnvelope(internalError(), c.var.requestId));
  }
}
