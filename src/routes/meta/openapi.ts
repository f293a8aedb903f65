import { z } from "zod";
import { defineRoute } from "../../http/route";

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
  caching: "per-request",
  response: {
    description: "The API description.",
    schema: z.object({ openapi: z.literal("3.1.0") }).passthrough(),
    headers: { ETag: { description: "Strong validator of the document.", schema: { type: "string" } } },
  },
  otherResponses: { 304: { description: "Unchanged since the ETag in If-None-Match." } },
  handler: async (c) => {
    // The document of the app serving this request (registered by the app factory).
    const { body, etag } = await c.get("apiDescription").published();
    c.header("ETag", etag);
    c.header("Cache-Control", "public, max-age=3600");
    c.header("Access-Control-Allow-Origin", "*");
    if (matches(c.req.header("If-None-Match"), etag)) return c.body(null, 304);
    c.header("Content-Type", "application/json; charset=utf-8");
    return c.body(body, 200);
  },
});
