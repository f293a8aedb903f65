import { expect } from "vitest";

/** A strike's or cell's exposure as served: call and put in whole dollars, net exactly their sum. */
export function expectServedExposure(e: { callGex: number; putGex: number; netGex: number }): void {
  for (const dollars of [e.callGex, e.putGex, e.netGex]) expect(Number.isInteger(dollars)).toBe(true);
  expect(e.netGex).toBe(e.callGex + e.putGex);
}
