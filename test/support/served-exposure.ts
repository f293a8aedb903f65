import { expect } from "vitest";

/** Served GEX dollars are whole cents (to the precision of a double at that magnitude). */
export function expectCents(dollars: number): void {
  expect(Math.abs(dollars * 100 - Math.round(dollars * 100))).toBeLessThan(1e-3);
}

/** A strike's or cell's exposure as served: call and put in cents, net their sum to the cent. */
export function expectServedExposure(e: { callGex: number; putGex: number; netGex: number }): void {
  for (const dollars of [e.callGex, e.putGex, e.netGex]) expectCents(dollars);
  expect(Math.round(e.netGex * 100)).toBe(Math.round((e.callGex + e.putGex) * 100));
}
