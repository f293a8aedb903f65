import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { MAX_BODY_BYTES } from "../../src/http/body-limit";
import { MAX_BATCH_MESSAGES } from "../../src/mcp/batch";
import { HeatmapSummarySchema } from "../../src/mcp/summaries";
import { MAX_RESULT_CHARS, MCP_TOOLS } from "../../src/mcp/tools";
import { contractBody } from "../support/contract";
import { newHttpAccount, sharedWorker } from "../support/http-accounts";

/** The official MCP client over Streamable HTTP, with the key as the REST API takes it. */
async function connect(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${sharedWorker().url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

/** A tool error's payload: the API's envelope fields. */
function toolError(result: CallToolResult): {
  error: string;
  message: string;
  status: number;
  timestamp: string;
  request_id: string;
  retry_after_seconds?: number;
} {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  return result.structuredContent as never;
}

/** One JSON-RPC message: a request with `id`, a notification without. */
const rpc = (method: string, params: Record<string, unknown> = {}, id?: number) => ({
  jsonrpc: "2.0",
  method,
  params,
  ...(id === undefined ? {} : { id }),
});
const toolCall = (id: number, name: string, args: Record<string, unknown>) => rpc("tools/call", { name, arguments: args }, id);
const cancel = (requestId: number) => rpc("notifications/cancelled", { requestId, reason: "not needed" });

/** A raw POST to `/mcp` as a Streamable HTTP client sends it; given up after 10 s, so a hung answer fails the test rather than stalls it. */
const post = (key: string, body: unknown) =>
  fetch(`${sharedWorker().url}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
    // Long enough for a body read after a 1,000-request burst on a loaded machine (the timeout aborts the body too).
    signal: AbortSignal.timeout(60_000),
  });
const remaining = (res: Response) => Number(res.headers.get("X-RateLimit-Remaining"));

const requestsToday = async (key: string) =>
  (
    (await (await fetch(`${sharedWorker().url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } })).json()) as {
      requests: { today: number };
    }
  ).requests.today;

describe("/mcp with the official MCP client against wrangler dev", () => {
  let key: string;
  let client: Client;
  beforeAll(async () => {
    key = (await newHttpAccount()).key;
    client = await connect(key);
  });
  afterAll(() => client?.close());

  it("initialises and lists one tool per entry of the tool table, inputs derived from the routes' contracts", async () => {
    expect(client.getServerVersion()?.name).toBe("options-data-service");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const tool of tools) {
      const route = MCP_TOOLS.find((t) => t.name === tool.name)!.route;
      const contract = [route.params, route.query, route.body].flatMap((s) => Object.keys((s as z.ZodObject | undefined)?.shape ?? {}));
      expect(
        Object.keys(tool.inputSchema.properties ?? {}).every((name) => contract.includes(name)),
        tool.name,
      ).toBe(true);
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const described = (name: string) => tools.find((t) => t.name === name)!.description!;
    expect(described("get_iv_context")).toMatch(/percent/);
    expect(described("get_gex")).toMatch(/dollars per 1% move/);
    expect(described("get_chain")).toMatch(/IV in percent/);
  });

  it("counts every message as a request, and a tool call once more as the REST request it runs", async () => {
    const fresh = await newHttpAccount();
    // initialize and notifications/initialized; the client's GET for a stream is a 405, answered before the key is read.
    const other = await connect(fresh.key);
    await other.listTools();
    expect(await requestsToday(fresh.key)).toBe(2 + 1 + 1);
    await call(other, "get_iv_context", { symbol: "SPY" });
    await call(other, "get_expirations", { symbol: "SPY" });
    expect(await requestsToday(fresh.key)).toBe(4 + 2 * 2 + 1);
    await other.close();
  });

  it("counts initialize, ping and notifications one request each, before answering", async () => {
    const fresh = await newHttpAccount();
    const initialize = await post(
      fresh.key,
      rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }, 1),
    );
    expect(initialize.status).toBe(200);
    const notification = await post(fresh.key, rpc("notifications/initialized"));
    expect(notification.status).toBe(202);
    const ping = await post(fresh.key, rpc("ping", {}, 2));
    expect(await ping.json()).toMatchObject({ id: 2, result: {} });
    // Each passed the rate-limit stage, and the account's day count holds all three (and this request).
    for (const res of [initialize, notification, ping]) expect(res.headers.get("X-RateLimit-Remaining")).not.toBeNull();
    expect(await requestsToday(fresh.key)).toBe(3 + 1);
  });

  it("counts every tools/list: of 1,000 on one key, those past the minute's 300 are refused 429 rate_limited with Retry-After", async () => {
    const fresh = await newHttpAccount();
    const started = Date.now();
    // One first, alone: the key is then in the edge's cache, and the rest never look it up (the per-client bound on lookups).
    const answers = [await post(fresh.key, rpc("tools/list", {}, 0))];
    for (let round = 0; round < 40; round++) {
      const size = round === 0 ? 24 : 25;
      answers.push(
        ...(await Promise.all(Array.from({ length: size }, (_, i) => post(fresh.key, rpc("tools/list", {}, answers.length + i))))),
      );
    }
    const listed = answers.filter((res) => res.status === 200).length;
    // 300 at once; on a loaded machine one more for each 200 ms the burst took (GCRA refills one per 200 ms).
    expect(listed).toBeGreaterThanOrEqual(300);
    expect(listed).toBeLessThanOrEqual(300 + Math.ceil((Date.now() - started) / 200) + 1);
    const refused = answers.filter((res) => res.status !== 200);
    expect(refused.length).toBe(1_000 - listed);
    expect(refused.every((res) => res.status === 429)).toBe(true);
    expect(Number(refused[0]!.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await refused[0]!.json()).toMatchObject({ error: "rate_limited", status: 429 });
    await Promise.all(answers.map((res) => (res.bodyUsed ? undefined : res.body?.cancel())));
    await expect(connect(fresh.key)).rejects.toThrow(/rate_limited/);
  });

  it(`counts a batch as the messages it holds: ${MAX_BATCH_MESSAGES} at the cap are as many requests; above it, refused 400 for one`, async () => {
    const fresh = await newHttpAccount();
    const atCap = await post(
      fresh.key,
      Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => rpc("tools/list", {}, i + 1)),
    );
    expect(atCap.status).toBe(200);
    expect(((await atCap.json()) as unknown[]).length).toBe(MAX_BATCH_MESSAGES);
    expect(await requestsToday(fresh.key)).toBe(MAX_BATCH_MESSAGES + 1);
    const above = await post(
      fresh.key,
      Array.from({ length: 100 }, (_, i) => rpc("tools/list", {}, i + 1)),
    );
    expect(above.status).toBe(400);
    expect(await above.json()).toMatchObject({
      error: "invalid_body",
      message: expect.stringContaining(`at most ${MAX_BATCH_MESSAGES} messages`),
    });
    // Counted once: the request, refused before its messages are.
    expect(await requestsToday(fresh.key)).toBe(MAX_BATCH_MESSAGES + 1 + 1 + 1);
  });

  it("answers at once a batch with a request cancelled in it or an id twice, and leaves no in-flight slot held", async () => {
    const fresh = await newHttpAccount();
    const expirations = (id: number) => toolCall(id, "get_expirations", { symbol: "SPY" });
    // All it asked is cancelled: nothing to answer, nothing run.
    expect((await post(fresh.key, [expirations(1), cancel(1)])).status).toBe(202);
    const partly = await post(fresh.key, [expirations(1), expirations(2), cancel(2)]);
    expect(partly.status).toBe(200);
    expect([await partly.json()].flat().map((answer) => (answer as { id: number }).id)).toEqual([1]);
    const twice = await post(
      fresh.key,
      [1, 2, 3, 4, 5].map(() => toolCall(7, "get_chain", { symbol: "SPY" })),
    );
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ error: "invalid_body", message: expect.stringContaining("appears twice") });
    // Messages as sent (2 + 3 + 1 refused), the one tool call that ran, and this request.
    expect(await requestsToday(fresh.key)).toBe(2 + 3 + 1 + 1 + 1);
    // The account's 5 in-flight slots are all free: 5 tool calls at once are all admitted.
    const client = await connect(fresh.key);
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => call(client, "get_expirations", { symbol: "SPY" })));
    expect(results.map((result) => result.isError ?? false)).toEqual([false, false, false, false, false]);
    await client.close();
  });

  it("answers every tool with valid input: the route's body (or its stated summary), with asOf, within the size bound", async () => {
    const chain = await call(client, "get_chain", { symbol: "SPY", maxDte: 30 });
    const symbols = (chain.structuredContent as { contracts: { optionSymbol: string }[] }).contracts.slice(0, 2).map((c) => c.optionSymbol);
    const inputs: Record<string, Record<string, unknown>> = {
      get_chain: { symbol: "SPY", maxDte: 30 },
      get_option_quotes: { symbols: symbols.join(",") },
      get_expirations: { symbol: "SPY" },
      get_equity_quote: { symbol: "SPY" },
      screen_contracts: { symbols: ["SPY"], type: "call", dteMax: 30 },
      get_iv_context: { symbol: "SPY" },
      get_top_iv: {},
      get_top_ivr: {},
      get_gex: { symbol: "SPY" },
      get_gex_heatmap: { symbol: "SPY" },
      get_flow: {},
      get_net_flow: { symbol: "SPY" },
      get_earnings: {},
      get_dividends: {},
    };
    expect(Object.keys(inputs)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const tool of MCP_TOOLS) {
      const result = await call(client, tool.name, inputs[tool.name]);
      expect(result.isError ?? false, `${tool.name}: ${JSON.stringify(result.content)}`).toBe(false);
      const text = (result.content[0] as { text: string }).text;
      expect(text.length, tool.name).toBeLessThanOrEqual(MAX_RESULT_CHARS);
      const body = result.structuredContent as Record<string, unknown>;
      expect(JSON.parse(text)).toEqual(body);
      expect(body, `${tool.name} carries asOf`).toHaveProperty("asOf");
      // The body the route answered (validated by its own schema), less the asOf the tool added where the route has none.
      const { asOf, ...routeBody } = body;
      const checked = tool.asOf ? routeBody : body;
      if (tool.name === "get_gex_heatmap") HeatmapSummarySchema.strict().parse(body);
      else await contractBody(tool.route, new Response(JSON.stringify(checked)));
      expect(asOf === null || typeof asOf === "string", tool.name).toBe(true);
    }
  });

  it("keeps large answers small: page sizes capped, GEX strikes near spot, net flow thinned", async () => {
    const chain = await call(client, "get_chain", { symbol: "SPY", maxDte: 60, limit: 500 });
    const page = chain.structuredContent as { contracts: unknown[]; nextCursor: string | null };
    expect(page.contracts.length).toBe(50);
    expect((chain.content[0] as { text: string }).text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    const next = await call(client, "get_chain", { symbol: "SPY", maxDte: 60, limit: 500, cursor: page.nextCursor });
    expect(next.isError ?? false).toBe(false);
    const flow = await call(client, "get_flow", { limit: 500, minPremium: 0 });
    expect((flow.content[0] as { text: string }).text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    const gex = (await call(client, "get_gex", { symbol: "SPY", maxDte: 365 })).structuredContent as { strikes: unknown[] };
    expect(gex.strikes.length).toBeLessThanOrEqual(40);
    const net = (await call(client, "get_net_flow", { symbol: "SPY", minPremium: 0 })).structuredContent as { points: unknown[] };
    expect(net.points.length).toBeLessThanOrEqual(60);
  });

  it("turns invalid input into a tool error with the API's code, never a transport failure", async () => {
    expect(toolError(await call(client, "get_chain", { symbol: "not a symbol" }))).toMatchObject({
      error: "invalid_parameter",
      status: 400,
    });
    expect(toolError(await call(client, "get_chain", { symbol: "SPY", deltaMin: 3 }))).toMatchObject({ error: "invalid_parameter" });
    expect(toolError(await call(client, "get_chain", {}))).toMatchObject({ error: "missing_symbol" });
    expect(toolError(await call(client, "get_chain", { symbol: "NOSUCH" }))).toMatchObject({ error: "not_found", status: 404 });
    expect(toolError(await call(client, "get_earnings", { from: "2026-12-10", to: "2026-12-01" }))).toMatchObject({
      error: "invalid_range",
    });
    expect(toolError(await call(client, "screen_contracts", { bogus: 1 }))).toMatchObject({ error: "invalid_body" });
    // A lone surrogate, which `encodeURIComponent` throws on, is the route's to refuse.
    expect(toolError(await call(client, "get_chain", { symbol: "\ud800" }))).toMatchObject({ error: "invalid_parameter", status: 400 });
    const error = toolError(await call(client, "get_iv_context", { symbol: 42 }));
    expect(error.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(error.timestamp)).not.toBeNaN();
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("refuses every message of a key without an entitled account with the REST API's 403, tools/list and initialize included", async () => {
    const ended = await newHttpAccount({ status: "trialing", trialEnded: true });
    const list = await post(ended.key, rpc("tools/list", {}, 1));
    expect(list.status).toBe(403);
    expect(list.headers.get("X-RateLimit-Remaining")).toBeNull();
    expect(await list.json()).toMatchObject({ error: "trial_ended", status: 403 });
    await expect(connect(ended.key)).rejects.toThrow(/trial_ended/);
    await expect(connect((await newHttpAccount({ status: "canceled" })).key)).rejects.toThrow(/subscription_inactive/);
    const legacy = await post((await newHttpAccount({ plan: "legacy-starter" })).key, rpc("ping", {}, 1));
    expect(await legacy.json()).toMatchObject({ error: "plan_upgrade_required", required_plan: "basic" });
  });

  it("refuses a missing or revoked key with 401 and the API's envelope", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${sharedWorker().url}/mcp`, {
        method: "POST",
        // A client address of its own where wrangler dev passes one on: these failures count towards a lockout.
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "CF-Connecting-IP": "203.0.113.27",
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get("WWW-Authenticate")).toMatch(/^Bearer /);
    expect(await missing.json()).toMatchObject({ error: "missing_api_key", status: 401 });
    await expect(connect("", { "CF-Connecting-IP": "203.0.113.27" })).rejects.toThrow(/401/);

    const account = await newHttpAccount();
    expect((await post({ Authorization: `Bearer ${account.key}` })).status).toBe(200);
    await account.revoke();
    const revoked = await post({ Authorization: `Bearer ${account.key}` });
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toMatchObject({ error: "invalid_api_key" });
  });

  it("counts a tool call once more: with the minute spent by its batch, the REST request answers a rate_limited tool error", async () => {
    const fresh = await newHttpAccount();
    // Spend the minute's requests down to 5, one tools/list at a time: each answer says what remains.
    let left = 300;
    while (left > 5) left = remaining(await post(fresh.key, rpc("tools/list", {}, 1)));
    // A batch of that many tool calls: its messages take what is left, so their REST requests find none (bar a refill).
    const res = await post(
      fresh.key,
      Array.from({ length: left }, (_, i) => toolCall(i + 1, "get_expirations", { symbol: "SPY" })),
    );
    expect(res.status).toBe(200);
    const results = [await res.json()].flat().map((answer) => (answer as { result: CallToolResult }).result);
    const refusal = results.find((result) => (result.structuredContent as { error?: string }).error === "rate_limited");
    expect(toolError(refusal!)).toMatchObject({ error: "rate_limited", status: 429 });
    expect(toolError(refusal!).retry_after_seconds).toBeGreaterThanOrEqual(1);
  });

  it("refuses a message larger than the API's body bound as the REST routes do, counted", async () => {
    const res = await post(key, rpc("ping", { padding: "x".repeat(MAX_BODY_BYTES) }, 1));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_body", message: expect.stringContaining("larger than 64 KB") });
    expect(res.headers.get("X-RateLimit-Remaining")).not.toBeNull();
  });

  it("answers other methods with 405 and Allow: POST (stateless: no stream, no session)", async () => {
    const res = await fetch(`${sharedWorker().url}/mcp`, { headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("POST");
  });
});
