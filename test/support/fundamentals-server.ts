import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { VENDOR_TOKEN } from "./vendor-server";

const fixture = (name: string): string | null => {
  try {
    return readFileSync(new URL(`../fixtures/finnhub/${name}`, import.meta.url), "utf8");
  } catch {
    return null;
  }
};

/**
 * How the stand-in misbehaves: `ok` replays the fixtures; `down` answers 500 to everything,
 * `denied` 401; `no-dividends-plan` 403 to the dividend endpoint (a key whose plan lacks it); `empty-calendar` lists no earnings; `slow`, `badjson`, `weird` and `throttled` hit
 * only the symbols in `symbols` (no answer in time, a truncated body, JSON of another shape, 429
 * with `Retry-After: 1` to the first call of each endpoint).
 */
export type VendorMode = "ok" | "down" | "denied" | "no-dividends-plan" | "empty-calendar" | "slow" | "badjson" | "weird" | "throttled";

export interface FundamentalsServer {
  url: string;
  set(mode: VendorMode, symbols?: string[]): void;
  /** Every request seen: path and query (the token must never be among them). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A stand-in for Finnhub's calendar, dividend, profile and metric endpoints replaying the recorded
 * payloads of `test/fixtures/finnhub` (a symbol without one gets the vendor's empty answer), with
 * the failure modes of `VendorMode`.
 */
export function startFundamentalsServer(): Promise<FundamentalsServer> {
  let mode: VendorMode = "ok";
  let targets = new Set<string>();
  const requests: string[] = [];
  const throttled = new Set<string>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://vendor");
    requests.push(`${url.pathname}${url.search}`);
    const symbol = url.searchParams.get("symbol") ?? "";
    const json = (body: string) => res.writeHead(200, { "Content-Type": "application/json" }).end(body);
    if (req.headers["x-finnhub-token"] !== VENDOR_TOKEN || mode === "denied")
      return void res.writeHead(401, { "Content-Type": "application/json" }).end('{"error":"Invalid API key."}');
    if (mode === "down") return void res.writeHead(500).end("Internal Server Error");
    if (mode === "no-dividends-plan" && url.pathname === "/api/v1/stock/dividend")
      return void res.writeHead(403, { "Content-Type": "application/json" }).end('{"error":"You don\'t have access to this resource."}');
    if (mode === "throttled" && targets.has(symbol) && !throttled.has(`${url.pathname}${symbol}`)) {
      throttled.add(`${url.pathname}${symbol}`);
      return void res.writeHead(429, { "Retry-After": "1" }).end('{"error":"API limit reached."}');
    }
    if (targets.has(symbol) && mode !== "throttled") {
      if (mode === "slow") return void setTimeout(() => json("[]"), 5_000).unref();
      if (mode === "badjson") return json('{"name":"App');
      if (mode === "weird") return json('{"data":"unavailable"}');
    }
    switch (url.pathname) {
      case "/api/v1/calendar/earnings": {
        const from = url.searchParams.get("from") ?? "";
        const to = url.searchParams.get("to") ?? "";
        const all = JSON.parse(fixture("calendar-earnings.json")!) as { earningsCalendar: { date: string }[] };
        const listed = mode === "empty-calendar" ? [] : all.earningsCalendar.filter((e) => e.date >= from && e.date <= to);
        return json(JSON.stringify({ earningsCalendar: listed }));
      }
      case "/api/v1/stock/dividend":
        return json(fixture(`dividend-${symbol}.json`) ?? "[]");
      case "/api/v1/stock/profile2":
        return json(fixture(`profile2-${symbol}.json`) ?? "{}");
      case "/api/v1/stock/metric":
        return json(fixture(`metric-${symbol}.json`) ?? JSON.stringify({ metric: {}, metricType: "all", series: {}, symbol }));
      default:
        return void res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        set(next, symbols = []) {
          mode = next;
          targets = new Set(symbols);
          throttled.clear();
        },
        requests,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}
