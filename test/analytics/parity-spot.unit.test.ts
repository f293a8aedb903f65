import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bsm } from "../../src/analytics/black-scholes";
import { impliedSpot, parityForward, type ParityExpiry } from "../../src/analytics/parity-spot";
import { yearsToExpiry } from "../../src/domain/market-clock";
import { parseQuoteTable } from "../../ingest/sources/cboe/quote-table";
import { SPX_MARKET, SPX_SPOT } from "../support/spx-gex-fixture";

/** Every strike of the Cboe SPX table (2022-02-04 close, SPXW PM-settled) quoted two-sided on both sides, by expiration. */
function spxExpiries(): ParityExpiry[] {
  const table = parseQuoteTable(readFileSync("test/fixtures/cboe/SPX_2022-02-04_gex_quote_table.csv", "utf8"));
  const byStrike = new Map<string, { call?: number; put?: number; T: number; expiration: string; strike: number }>();
  for (const c of table.contracts) {
    if (c.contract.root !== "SPXW" || !(c.bid > 0 && c.ask > c.bid)) continue;
    const key = `${c.contract.expiration}|${c.contract.strike}`;
    const entry = byStrike.get(key) ?? {
      T: yearsToExpiry(c.contract.expiration, c.settlement, table.asOf),
      expiration: c.contract.expiration,
      strike: c.contract.strike,
    };
    entry[c.contract.side] = (c.bid + c.ask) / 2;
    byStrike.set(key, entry);
  }
  const expiries = new Map<string, ParityExpiry & { pairs: { strike: number; callMid: number; putMid: number }[] }>();
  for (const e of byStrike.values()) {
    if (e.call === undefined || e.put === undefined) continue;
    const expiry = expiries.get(e.expiration) ?? { T: e.T, pairs: [] };
    expiry.pairs.push({ strike: e.strike, callMid: e.call, putMid: e.put });
    expiries.set(e.expiration, expiry);
  }
  return [...expiries.values()];
}

describe("spot implied by put–call parity", () => {
  it("finds the SPX spot in Cboe's quote table: within 0.2% of the 16:00 close it printed, and the same from every expiration", () => {
    const expiries = spxExpiries();
    const spot = impliedSpot(expiries, SPX_MARKET.r, SPX_MARKET.q);
    // The quotes are of 16:15, when SPX options stop trading; the index closed at 16:00 (4500.53).
    expect(Math.abs(spot! / SPX_SPOT - 1)).toBeLessThan(2e-3);
    // Its expirations from 5 to 55 days each imply it within 0.1% (≈ 4.5 index points).
    expect(expiries.length).toBeGreaterThanOrEqual(15);
    for (const expiry of expiries) {
      const alone = impliedSpot([expiry], SPX_MARKET.r, SPX_MARKET.q);
      expect(Math.abs(alone! / spot! - 1)).toBeLessThan(1e-3);
    }
  });

  it("recovers the spot of a Black-Scholes-Merton chain exactly, with dividends, from the nearest expiration a week out", () => {
    const S = 187.3;
    const [r, q] = [0.043, 0.021];
    const chain = [2 / 365, 9 / 365, 30 / 365].map((T) => ({
      T,
      pairs: [170, 180, 185, 190, 200].map((strike) => {
        const terms = { S, K: strike, T, r, q, sigma: 0.3 };
        return { strike, callMid: bsm({ ...terms, side: "call" }).price, putMid: bsm({ ...terms, side: "put" }).price };
      }),
    }));
    // A stale pair in the two-day expiration would move the spot if that expiration were used.
    chain[0]!.pairs = chain[0]!.pairs.map((p) => ({ ...p, callMid: p.callMid + 5 }));
    expect(impliedSpot(chain, r, q)).toBeCloseTo(S, 9);
  });

  it("takes the median of the three strikes nearest the forward, so one stale quote there moves nothing", () => {
    const pairs = [
      { strike: 100, callMid: 2.0, putMid: 2.0 },
      { strike: 95, callMid: 5.4, putMid: 0.4 },
      { strike: 105, callMid: 0.4, putMid: 5.4 },
      { strike: 110, callMid: 3.0, putMid: 4.0 },
    ];
    // The stale 110 strike (|C − P| = 1, forward 109) is among the three nearest; the median of 100, 109, 100 ignores it.
    expect(parityForward(pairs, 0, 0.1)).toBe(100);
  });

  it("falls back to the farthest expiration nearer than a week, and gives null without a quoted pair", () => {
    const near = [{ T: 1 / 365, pairs: [{ strike: 50, callMid: 1.5, putMid: 0.5 }] }];
    expect(impliedSpot(near, 0, 0)).toBeCloseTo(51, 12);
    expect(impliedSpot([{ T: 0.1, pairs: [] }], 0.04, 0)).toBeNull();
    expect(impliedSpot([], 0.04, 0)).toBeNull();
    expect(impliedSpot([{ T: 0.1, pairs: [{ strike: 1, callMid: 0, putMid: 30 }] }], 0, 0)).toBeNull();
  });
});
