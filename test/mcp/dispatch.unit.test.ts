import { Hono } from "hono";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AppEnv } from "../../src/app-env";
import { requestId } from "../../src/http/request-id";
import type { RouteSpec } from "../../src/http/route";
import { callTool } from "../../src/mcp/dispatch";
import type { McpTool } from "../../src/mcp/tools";

const KEY = "ods_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM";
const executionCtx = { waitUntil() {}, passThroughOnException() {}, props: {} };

describe("a tool that fails inside", () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers the API's internal_error envelope as a tool error, logged by request id without the key, never the exception", async () => {
    const app = new Hono<AppEnv>();
    app.use(requestId);
    app.get("/v1/profile", (c) => c.json({ strikes: null }));
    // A summary that meets a body it does not expect: the failure is ours, not the caller's.
    const broken: McpTool = {
      name: "get_profile",
      route: { method: "get", path: "/v1/profile" } as RouteSpec,
      description: "",
      shrink: (body: { strikes: unknown[] }) => body.strikes.slice(0, 40),
    };
    app.post("/mcp", async (c) => c.json(await callTool(app, c, broken, {})));
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});

    const res = await app.request("/mcp", { method: "POST", headers: { Authorization: `Bearer ${KEY}` } }, {}, executionCtx);
    const result = (await res.json()) as CallToolResult;
    const id = res.headers.get("X-Request-ID");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: "internal_error",
      message: "An internal error occurred. Quote the request_id when contacting support.",
      status: 500,
      timestamp: expect.any(String),
      request_id: id,
    });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect(JSON.stringify(result)).not.toMatch(/TypeError|slice|dispatch/);

    expect(logged).toHaveBeenCalledOnce();
    const line = String(logged.mock.calls[0]![0]);
    expect(JSON.parse(line)).toMatchObject({ level: "error", requestId: id, path: "/mcp get_profile", error: "TypeError" });
    expect(line).not.toContain(KEY);
    expect(line).not.toMatch(/\n\s+at /);
  });
});
