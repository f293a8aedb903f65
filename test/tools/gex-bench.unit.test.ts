import { describe, expect, it } from "vitest";
import { benchGex } from "../../bench/gex-analytics";

describe("GEX micro-benchmark", () => {
  // Its timings are `npm run bench`'s to report; a test only checks that it measures the right work.
  it("builds a 20,000-contract book and finds its flip", () => {
    const r = benchGex({ runs: 1 });
    expect(r.contracts).toBeGreaterThan(19_000);
    expect(r.flip).not.toBeNull();
    expect(r.bookMs + r.flipMs).toBeGreaterThan(0);
  });
});
