import { routes } from "../../src/routes";
import type { RouteSpec } from "../../src/http/route";

/**
 * One valid request per described route, answering 200 on the test market (the SPXW contract
 * comes from the real Cboe excerpt the global setup loads). A new route must add its own.
 */
const SAMPLES: Record<string, string> = {
  getHealth: "/health",
  getReadiness: "/ready",
  getOpenApi: "/openapi.json",
  listPlans: "/public/plans",
  verifyKey: "/v1/auth/verify",
  getUsage: "/v1/usage",
  getEquityQuote: "/v1/quotes/SPY",
  getOptionQuote: "/v1/options/quotes/SPXW220218C04500000",
  getOptionQuotes: "/v1/options/quotes?symbols=SPXW220218C04500000",
  getExpirations: "/v1/expirations/SPY",
  getChain: "/v1/chain/SPY",
  getEarnings: "/v1/earnings",
  getDividends: "/v1/dividends",
  getIvContext: "/v1/iv/SPY",
  getTopIv: "/v1/stocks/top-iv",
  getTopIvr: "/v1/stocks/top-ivr",
  getGex: "/v1/gex/SPY",
  getGexHeatmap: "/v1/gex/SPY/heatmap",
  getFlow: "/v1/flow",
  getNetFlow: "/v1/flow/net?symbol=SPY",
  screenContracts: "/v1/contracts/screen",
};

/** Bodies of the sample requests of routes that take one (sent as JSON with the route's method). */
const BODIES: Record<string, unknown> = {
  screenContracts: { type: "put", dteMin: 7, dteMax: 60, filters: [{ field: "annualizedReturn", operation: "sort", value: "desc" }] },
};

export interface SampleRequest {
  route: RouteSpec;
  path: string;
  /** The request with its method and body, and the given headers (credentials) added. */
  init(auth?: RequestInit): RequestInit;
}

/** The described routes (admin API excluded) with their sample request; throws for a route without one. */
export function sampleRequests(filter: (route: RouteSpec) => boolean = () => true): SampleRequest[] {
  return routes
    .filter((r) => r.access !== "admin" && filter(r))
    .map((route) => {
      const path = SAMPLES[route.operationId];
      if (!path) throw new Error(`no sample request for ${route.operationId}: add one to test/support/sample-requests.ts`);
      const body = BODIES[route.operationId];
      const init = (auth: RequestInit = {}): RequestInit =>
        body === undefined
          ? auth
          : {
              ...auth,
              method: route.method.toUpperCase(),
              body: JSON.stringify(body),
              headers: { ...(auth.headers as Record<string, string> | undefined), "Content-Type": "application/json" },
            };
      return { route, path, init };
    });
}
