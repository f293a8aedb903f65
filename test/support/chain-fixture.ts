import { chainRoute } from "../../src/routes/quotes-and-options/chain";
import type { ApiClient } from "./api-client";
import { contractBody } from "./contract";

/** `GET /v1/chain/{symbol}` (SPY unless given) read through its contract with the client `api()` returns at call time. */
export function chainReader(api: () => ApiClient) {
  return async (query: string, symbol = "SPY") => {
    const res = await api().get(`/v1/chain/${symbol}${query ? `?${query}` : ""}`);
    return { res, body: await contractBody(chainRoute, res) };
  };
}
