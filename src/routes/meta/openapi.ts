import { z } from "zod";
import { defineRoute } from "../../http/route";
import { sha256Hex } from "../../crypto/sha256";
import { buildOpenApiDocument } from "../../openapi/document";
import type { RouteSpec } from "../../http/route";

interface Published {
  body: string;
  etag: string;
}

/** Built on first use and kept for the isolate's life (the value, not a promise shared across requests). */
let published: Published | undefined;
let describedRoutes: readonly RouteSpec[] = [];

/** Registers the routes the description covers; the document is built once, on first use. */
export function describeRoutes(routes: readonly RouteSpec[]): void {
  describedRoutes = routes;
  published = undefined;
}

async function publish(): Promise<Published> {
  const body = JSON.stringify(buildOpenApiDocument(describedRoutes));
  return { body, etag: `"${(await sha256Hex(body)).slice(0, 32)}"` };
}

/** True when an If-None-Match value (list, weak or `*`) matches our strong ETag. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

export const openApiRoute = defineRoute({
  method: "get",
  path: "/openapi.json",
  aliases: ["/v1/openapi.json"],
  operationId: "getOpenApi",
  summary: "API description (OpenAPI 3.1)",
  description: "Supports `If-None-Match`: 304 when the document is unchanged.",
  tags: ["Meta"],
  access: "public",
  responses: {
    200: {
      description: "The API description.",
      schema: z.object({ openapi: z.literal("3.1.0") }).passthrough(),
      headers: { ETag: { description: "Strong validator of the document.", schema: { type: "string" } } },
    },
    304: { description: "Unchanged since the ETag in If-None-Match." },
  },
  handler: async (c) => {
    published ??= await publish();
    const { body, etag } = published;
    c.header("ETag", etag);
    c.header("Cache-Control", "public, max-age=3600");
    c.header("Access-Control-Allow-Origin", "*");
    if (matches(c.req.header("If-None-Match"), etag)) return c.body(null, 304);
    c.header("Content-Type", "application/json; charset=utf-8");
    return c.body(body, 200);
  },
});
