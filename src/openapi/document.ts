import { z } from "zod";
import { ErrorEnvelopeSchema } from "../http/error-schema";
import { ERROR_STATUS, type ErrorCode } from "../http/errors";
import { routeErrorCodes } from "../http/pipeline-errors";
import type { RouteSpec } from "../http/route";
import { API_VERSION } from "../version";
import { GETTING_STARTED } from "./getting-started";
import { errorResponse, jsonSchema, type JsonSchema } from "./json-schema";
import { streamOperation, STREAM_SCHEMAS } from "./stream-operation";

export { jsonSchema };

const STATUS_TEXT: Record<number, string> = {
  400: "Validation failure.",
  401: "Missing, malformed or invalid key.",
  403: "Entitlement or credential rejection.",
  404: "Resource, ticker or contract does not exist.",
  409: "Conflict with the current state.",
  429: "Throttled; see Retry-After.",
  500: "Unhandled internal or database error.",
  502: "Upstream market data provider failure.",
  503: "Backing database, cache or provider unavailable; see Retry-After.",
};

function parameters(route: RouteSpec): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (location: "path" | "query", schema: z.ZodType | undefined) => {
    if (!schema) return;
    const object = jsonSchema(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...propertySchema } = property as JsonSchema & { description?: string };
      out.push({
        name,
        in: location,
        required: location === "path" || (object.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: propertySchema,
      });
    }
  };
  add("path", route.params);
  add("query", route.query);
  return out;
}

/** One response per error status, its `error` the enum of exactly the codes this route can answer with it. */
function errorResponses(route: RouteSpec): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrorCodes(route)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = errorResponse(STATUS_TEXT[status] ?? "Error.", codes, status);
  }
  return out;
}

function operation(route: RouteSpec): JsonSchema {
  const success = route.response;
  const responses: Record<string, JsonSchema> = {
    [String(success.status ?? 200)]: {
      description: success.description,
      ...(success.headers ? { headers: success.headers } : {}),
      ...(success.schema ? { content: { "application/json": { schema: jsonSchema(success.schema, "output") } } } : {}),
    },
  };
  for (const [status, spec] of Object.entries(route.otherResponses ?? {})) {
    responses[status] = {
      description: spec.description,
      ...(spec.schema ? { content: { "application/json": { schema: jsonSchema(spec.schema, "output") } } } : {}),
    };
  }
  for (const [status, response] of Object.entries(errorResponses(route))) responses[status] ??= response;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(route.access === "public" ? { security: [] } : {}),
    parameters: parameters(route),
    // The body the route validates (the screener's): clients and generated types need it as much as the parameters.
    ...(route.body
      ? { requestBody: { required: false, content: { "application/json": { schema: jsonSchema(route.body, "input") } } } }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 description of every public route, derived from the route specs. */
export function buildOpenApiDocument(allRoutes: readonly RouteSpec[]): JsonSchema {
  // The admin API is internal: never described publicly.
  const routes = allRoutes.filter((r) => r.access !== "admin");
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method] = operation(route);
    for (const alias of route.aliases ?? []) {
      (paths[alias] ??= {})[route.method] = { ...operation(route), operationId: `${route.operationId}Alias` };
    }
  }
  paths["/v1/stream"] = { get: streamOperation() };
  return {
    openapi: "3.1.0",
    info: {
      title: "Options Data Service",
      version: API_VERSION,
      description: GETTING_STARTED,
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set([...routes.flatMap((r) => r.tags), "Streams"])].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "API key `ods_live_` + 49 base62 characters, sent as `Authorization: Bearer <key>`.",
        },
      },
      schemas: { Error: jsonSchema(ErrorEnvelopeSchema, "output"), ...STREAM_SCHEMAS },
    },
  };
}
