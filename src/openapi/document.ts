import { z } from "zod";
import type { Access, RouteSpec } from "../http/route";
import { ErrorEnvelopeSchema } from "../http/error-schema";
import { API_VERSION } from "../version";

const STATUS_TEXT: Record<number, string> = {
  304: "Not modified.",
  400: "Validation failure.",
  401: "Missing, malformed or invalid key.",
  403: "Entitlement or credential rejection.",
  404: "Resource, ticker or contract does not exist.",
  405: "Unsupported method.",
  429: "Throttled; see Retry-After.",
  500: "Unhandled internal or database error.",
  502: "Upstream market data provider failure.",
  503: "Backing database, cache or provider unavailable.",
};

/** Errors every route of an access level can answer (spec: Errors, "common errors"). */
const COMMON_ERRORS: Record<Exclude<Access, "admin">, number[]> = {
  public: [403, 429, 500],
  key: [400, 401, 403, 429, 500, 503],
  entitled: [400, 401, 403, 429, 500, 503],
};

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    reused: "inline",
  }) as JsonSchema;
  return rest;
}

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

function operation(route: RouteSpec): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      ...(spec.headers ? { headers: spec.headers } : {}),
      ...(spec.schema ? { content: { "application/json": { schema: jsonSchema(spec.schema, "output") } } } : {}),
    };
  }
  const common = route.access === "admin" ? [] : COMMON_ERRORS[route.access];
  for (const status of [...common, ...(route.errors ?? [])]) {
    responses[String(status)] ??= {
      description: STATUS_TEXT[status] ?? "Error.",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(route.access === "public" ? { security: [] } : {}),
    parameters: parameters(route),
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
  return {
    openapi: "3.1.0",
    info: {
      title: "Options Data Service",
      version: API_VERSION,
      description: "US equity option chains with Greeks, quotes, screener, calendars, IV context, dealer gamma exposure and options flow.",
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(routes.flatMap((r) => r.tags))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "API key `ods_live_` + 49 base62 characters, sent as `Authorization: Bearer <key>`.",
        },
      },
      schemas: { Error: jsonSchema(ErrorEnvelopeSchema, "output") },
    },
  };
}
