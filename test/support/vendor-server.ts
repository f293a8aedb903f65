import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { listenOn } from "../../devkit/listen";

/** The token the Worker under test must send (QUOTE_PROVIDER_TOKEN in vitest.config.ts). */
export const VENDOR_TOKEN = "test-vendor-token-4f2a9c";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/finnhub/${name}`, import.meta.url), "utf8");

/**
 * A stand-in for the quote vendor serving recorded payloads, with symbols that misbehave on
 * purpose: SLOW never answers in time, BADJSON sends a truncated body, DOWN answers 500, FLAKY
 * fails once then answers, LOCKED answers 403, WEIRD sends JSON of another shape.
 */
export async function startVendorServer(port: number): Promise<Server> {
  const calls = new Map<string, number>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://vendor");
    if (url.pathname === "/__calls") {
      res.end(JSON.stringify(Object.fromEntries(calls)));
      return;
    }
    const symbol = url.searchParams.get("symbol") ?? "";
    calls.set(symbol, (calls.get(symbol) ?? 0) + 1);
    if (url.pathname !== "/api/v1/quote") return void res.writeHead(404).end();
    if (req.headers["x-finnhub-token"] !== VENDOR_TOKEN)
      return void res.writeHead(401, { "Content-Type": "application/json" }).end('{"error":"Invalid API key."}');
    const json = (body: string) => res.writeHead(200, { "Content-Type": "application/json" }).end(body);
    switch (symbol) {
      case "AAPL":
        return json(fixture("quote-AAPL.json"));
      case "SLOW":
        setTimeout(() => json(fixture("quote-AAPL.json")), 5_000).unref();
        return;
      case "BADJSON":
        return json('{"c":229.8');
      case "DOWN":
        return void res.writeHead(500).end("Internal Server Error");
      case "FLAKY":
        if ((calls.get(symbol) ?? 0) % 2 === 1) return void res.writeHead(502).end("Bad Gateway");
        return json(fixture("quote-AAPL.json").replace("229.87", "41.5"));
      case "LOCKED":
        return void res.writeHead(403, { "Content-Type": "application/json" }).end('{"error":"You don\'t have access to this resource."}');
      case "WEIRD":
        return json('{"price":"12.5"}');
      default:
        return json(fixture("quote-unknown.json"));
    }
  });
  await listenOn(server, port);
  return server;
}
