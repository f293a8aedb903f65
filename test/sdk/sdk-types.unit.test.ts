import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SDK_TYPES_FILE, sdkTypes } from "../../scripts/codegen/sdk-types-source";

describe("the SDK's generated types", () => {
  it("are exactly what openapi-typescript makes of the current API description (else run npm run sdk:types)", async () => {
    expect(readFileSync(SDK_TYPES_FILE, "utf8") === (await sdkTypes()), `${SDK_TYPES_FILE} drifted from the API description`).toBe(true);
  });
});

describe("the SDK's public types", () => {
  it("compile strict and declare no `any`", () => {
    const out = mkdtempSync(join(tmpdir(), "sdk-d-ts-"));
    try {
      execFileSync("node_modules/.bin/tsc", ["-p", "sdk", "--emitDeclarationOnly", "--outDir", out], { stdio: "pipe" });
      const declarations = readdirSync(out, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"));
      expect(declarations).toContain(join("src", "index.d.ts"));
      for (const file of declarations) {
        // Comments may say "any"; code may not.
        const code = readFileSync(join(out, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
        expect(code.match(/\bany\b/g) ?? [], file).toEqual([]);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
