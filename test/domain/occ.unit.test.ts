import { describe, expect, it } from "vitest";
import { formatOcc, parseOcc } from "../../src/domain/occ";
import vectors from "../fixtures/published-vectors.json";

type Vector = { raw: string; root: string; expiry: string; type: "C" | "P"; strike: number; length: number };

describe("OCC option symbols", () => {
  it("decodes the reference examples in both the padded and the compact form", () => {
    const cases = vectors.occSymbols as Vector[];
    expect(cases.length).toBeGreaterThanOrEqual(4);
    for (const v of cases) {
      expect(v.raw).toHaveLength(v.length);
      const parsed = parseOcc(v.raw);
      expect(parsed, v.raw).toEqual({ root: v.root, expiration: v.expiry, side: v.type === "C" ? "call" : "put", strike: v.strike });
      const compact = formatOcc(parsed!);
      expect(compact).toBe(v.raw.replace(/ /g, ""));
      expect(parseOcc(compact)).toEqual(parsed);
      expect(compact.length).toBeLessThanOrEqual(21);
    }
  });

  it("keeps fractional strikes exact to the thousandth", () => {
    expect(parseOcc("SPY   231215P00457500")?.strike).toBe(457.5);
    expect(formatOcc({ root: "F", expiration: "2026-01-16", side: "call", strike: 12.345 })).toBe("F260116C00012345");
    expect(formatOcc({ root: "SPXW", expiration: "2026-12-18", side: "put", strike: 5000.1 })).toBe("SPXW261218P05000100");
  });

  it("rejects malformed symbols", () => {
    for (const bad of [
      "",
      "AAPL",
      "aapl250117c00175000",
      "TOOLONGX250117C00175000",
      "AAPL250117X00175000",
      "AAPL250117C0017500",
      "AAPL250117C001750000",
      "AAPL251317C00175000",
      "AAPL250230C00175000",
      "AAPL250117C00000000",
      "AAPL 250117C00175000",
      "AAPL   250117C00175000",
      " AAPL250117C00175000",
      "AAPL250117C00175000 ",
      "AA-PL250117C00175000",
    ]) {
      expect(parseOcc(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
