import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { routes } from "../src/routes";
import { bearer, newAccount } from "./support/accounts";
import { call } from "./support/worker";

/** Deterministic garbage: the same seed always sends the same requests. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 4294967296;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] as T;
  const atoms = [
    "",
    " ",
    "0",
    "-1",
    "1e309",
    "NaN",
    "Infinity",
    "0x1F",
    "3.14",
    "9".repeat(40),
    "null",
    "[]",
    "{}",
    "'",
    '"',
    "%00",
    "%",
    "%ZZ",
    "\u0000",
    "é",
    "💥",
    "a,b,,c",
    "<script>",
    "../../etc",
    "SPY",
    "spy",
    "2026-02-30",
    "2026-12-18",
    "call",
    "put",
    "true",
    "ods_sess_x",
    "x".repeat(3000),
  ];
  const value = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(atoms)).join(pick(["", ",", " ", "-"]));
  return { next, pick, value };
}

/** Every query parameter any route declares, plus one nobody knows. */
const QUERY_NAMES = [...new Set(routes.flatMap((r) => (r.query instanceof z.ZodObject ? Object.keys(r.query.shape) : []))), "unknownParam"];

// Two accounts keep 400 requests under the per-account limit, so handlers (not the limiter) see the input.
let auths: RequestInit[] = [];
beforeAll(async () => {
  auths = await Promise.all([newAccount(), newAccount()].map(async (a) => bearer((await a).keys[0]!.key)));
});

describe("fuzzed input", () => {
  it("never answers 5xx (except the documented 502/503) nor hangs; every error is the envelope", async () => {
    const g = generator(20261120);
    const getRoutes = routes.filter((r) => r.method === "get" && r.access !== "admin");
    for (let i = 0; i < 400; i++) {
      const route = g.pick(getRoutes);
      const path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(g.value()).slice(0, 300));
      const query = Array.from({ length: Math.floor(g.next() * 4) }, () => `${g.pick(QUERY_NAMES)}=${encodeURIComponent(g.value())}`).join(
        "&",
      );
      const url = `${path}${query ? `?${query}` : ""}`;
      const res = await call(url, { ...auths[i % 2], signal: AbortSignal.timeout(5_000) });
      const text = await res.text();
      expect(res.status, url).not.toBe(429);
      expect([500, 504].includes(res.status), `${res.status} for ${url}: ${text.slice(0, 200)}`).toBe(false);
      if (res.status >= 400) {
        const body = JSON.parse(text) as { error: string; status: number; request_id: string };
        expect(body.status, url).toBe(res.status);
        expect(body.request_id, url).toBe(res.headers.get("X-Request-ID"));
        expect(text, url).not.toMatch(/at \w+ \(|select |postgres/i);
      }
    }
  });
});
