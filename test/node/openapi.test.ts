import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/openapi/document";
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
