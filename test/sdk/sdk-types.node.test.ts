import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SDK_TYPES_FILE, sdkTypes } from "../../scripts/lib/sdk-types";

describe("the SDK's generated types", () => {
  it("are exactly what openapi-typescript makes of the current API description (else run npm run sdk:types)", async () => {
    expect(readFileSync(SDK_TYPES_FILE, "utf8") === (await sdkTypes()), `${SDK_TYPES_FILE} drifted from the API description`).toBe(true);
  });
});
