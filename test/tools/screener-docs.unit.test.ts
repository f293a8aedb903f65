import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { screenerReference } from "../../scripts/codegen/screener-reference";
import { buildOpenApiDocument } from "../../src/openapi/document";
import { routes } from "../../src/routes";
import { ACCEPTED_FIELD_NAMES } from "../../src/screener/fields";
import { ACCEPTED_OPERATIONS } from "../../src/screener/operations";

describe("screener reference", () => {
  it("docs/screener.md holds the tables the code reads (npm run docs:screener rewrites them)", () => {
    expect(readFileSync("docs/screener.md", "utf8")).toContain(screenerReference());
  });

  it("the API description lists every accepted field name and operation", () => {
    const doc = JSON.stringify(buildOpenApiDocument(routes));
    for (const name of ACCEPTED_FIELD_NAMES) expect(doc, name).toContain(`\`${name}\``);
    for (const op of ACCEPTED_OPERATIONS) expect(doc, op).toContain(`\`${op}\``);
  });
});
