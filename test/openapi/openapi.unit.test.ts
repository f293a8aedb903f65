import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/openapi/document";
import { MCP_KEY_VARIABLE } from "../../src/reference/usage-snippets";
import { routes } from "../../src/routes";

describe("API description", () => {
  it("is a valid OpenAPI 3.1 document according to the OpenAPI schema validator", async () => {
    const doc = buildOpenApiDocument(routes);
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("documents every route with an operationId and the error envelope", () => {
    const doc = buildOpenApiDocument(routes) as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item)) {
        expect(ids.has(op.operationId), `${path} duplicate operationId`).toBe(false);
        ids.add(op.operationId);
        expect(op.responses["500"], path).toBeDefined();
      }
    }
  });
});

describe("API description of the market endpoints", () => {
  type Param = {
    name: string;
    in: string;
    description?: string;
    schema: { type?: string; minimum?: number; maximum?: number; default?: unknown };
  };
  const params = (path: string) =>
    (buildOpenApiDocument(routes) as { paths: Record<string, { get: { parameters: Param[] } }> }).paths[path]!.get.parameters;

  it("lists every chain parameter with its alias, default and bounds", () => {
    const chain = params("/v1/chain/{symbol}");
    const byName = new Map(chain.map((p) => [p.name, p]));
    for (const name of [
      "expiration",
      "side",
      "strikeMin",
      "strikeMax",
      "deltaMin",
      "deltaMax",
      "minOI",
      "oiMin",
      "minVolume",
      "volumeMin",
      "minDte",
      "dteMin",
      "maxDte",
      "dteMax",
      "limit",
      "cursor",
    ]) {
      expect(byName.has(name), name).toBe(true);
    }
    for (const [name, alias] of [
      ["minOI", "oiMin"],
      ["minVolume", "volumeMin"],
      ["minDte", "dteMin"],
      ["maxDte", "dteMax"],
    ] as const) {
      expect(byName.get(name)?.description).toContain(`Alias: ${alias}`);
      expect(byName.get(alias)?.description).toBe(`Alias of ${name}.`);
    }
    expect(byName.get("limit")?.schema).toMatchObject({ type: "integer", minimum: 1, default: 500 });
    expect(byName.get("minDte")?.schema).toMatchObject({ type: "integer", minimum: 0, default: 0 });
    expect(byName.get("maxDte")?.description).toMatch(/minDte \+ 45; 0 means unset/);
    expect(byName.get("deltaMin")?.schema).toMatchObject({ type: "number", minimum: -1, maximum: 1 });
    expect(byName.get("side")?.schema).toMatchObject({ enum: ["call", "put"] });
  });

  it("documents the expirations window with its defaults", () => {
    const byName = new Map(params("/v1/expirations/{symbol}").map((p) => [p.name, p]));
    expect(byName.get("maxDte")?.schema.default).toBe(365);
    expect(byName.get("minDte")?.schema.default).toBe(0);
    expect(byName.get("dteMax")?.description).toBe("Alias of maxDte.");
  });
});

describe("error responses in the description", () => {
  type Op = {
    responses: Record<string, { content?: { "application/json": { schema: { allOf?: { properties?: Record<string, unknown> }[] } } } }>;
  };
  const doc = buildOpenApiDocument(routes) as { paths: Record<string, Record<string, Op>> };
  const codes = (path: string, status: number) =>
    (
      doc.paths[path]!.get!.responses[String(status)]?.content?.["application/json"].schema.allOf?.[1]?.properties?.error as
        { enum: string[] } | undefined
    )?.enum;

  it("lists per status exactly the codes the route can answer", () => {
    expect(codes("/v1/chain/{symbol}", 404)).toEqual(["not_found"]);
    expect(codes("/v1/chain/{symbol}", 400)).toEqual(["credentials_in_query", "invalid_parameter", "invalid_range", "missing_symbol"]);
    expect(codes("/v1/chain/{symbol}", 403)).toEqual([
      "origin_forbidden",
      "plan_upgrade_required",
      "subscription_inactive",
      "subscription_required",
      "trial_ended",
      "wrong_credential_type",
    ]);
    expect(codes("/v1/quotes/{symbol}", 502)).toEqual(["upstream_error"]);
    expect(codes("/v1/options/quotes", 400)).toEqual(["credentials_in_query", "invalid_parameter", "missing_symbol", "too_many_symbols"]);
    // verify and usage need no subscription: no entitlement codes.
    expect(codes("/v1/usage", 403)).toEqual(["origin_forbidden", "wrong_credential_type"]);
  });

  it("documents the 400 of public routes and no authentication errors on them", () => {
    expect(codes("/health", 400)).toEqual(["credentials_in_query"]);
    expect(codes("/health", 401)).toBeUndefined();
    expect(codes("/public/plans", 429)).toEqual(["rate_limited"]);
  });

  it("matches the committed snapshot: every change to the contract shows in review", async () => {
    await expect(JSON.stringify(buildOpenApiDocument(routes), null, 2) + "\n").toMatchFileSnapshot("../snapshots/openapi.json");
  });
});

describe("the introduction /docs shows", () => {
  const intro = (buildOpenApiDocument(routes) as { info: { description: string } }).info.description;

  it("gives the three ways in: curl, the SDK's install and call, and an MCP client configuration that parses and holds no key", () => {
    expect(intro).toMatch(/curl .*Authorization: Bearer/);
    expect(intro).toContain("npm pack");
    expect(intro).toContain('from "@options-data-service/sdk"');
    const json = /```json\n([\s\S]*?)\n```/.exec(intro)?.[1] ?? "";
    const config = JSON.parse(json) as { mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }> };
    const server = Object.values(config.mcpServers)[0]!;
    expect(server).toMatchObject({ type: "http", url: expect.stringMatching(/\/mcp$/) });
    // A project's .mcp.json is committed: the key comes from the environment (Claude Code's `${VAR}` expansion).
    expect(server.headers).toEqual({ Authorization: `Bearer \${${MCP_KEY_VARIABLE}}` });
    expect(json).not.toContain("<API key>");
    expect(intro).toContain(`export ${MCP_KEY_VARIABLE}="<API key>"`);
  });
});
