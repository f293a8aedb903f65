import { ENTITLEMENT_REASONS } from "../domain/entitlement-reasons";
import type { ErrorCode } from "./errors";
import { trailingSymbolParam, type Access, type RouteSpec } from "./route";

/** What the pipeline before the handler can answer on every route (edge guards, unhandled failures). */
const EVERY_ROUTE: ErrorCode[] = ["credentials_in_query", "origin_forbidden", "internal_error"];

/** What each access level adds: the per-IP limit, or authentication, admission and the control database. */
const BY_ACCESS: Record<Access, ErrorCode[]> = {
  public: ["rate_limited"],
  key: [
    "missing_api_key",
    "invalid_api_key",
    "wrong_credential_type",
    "too_many_auth_failures",
    "rate_limited",
    "too_many_concurrent_requests",
    "service_unavailable",
  ],
  entitled: [
    "missing_api_key",
    "invalid_api_key",
    "wrong_credential_type",
    ...ENTITLEMENT_REASONS,
    "too_many_auth_failures",
    "rate_limited",
    "too_many_concurrent_requests",
    "service_unavailable",
  ],
  admin: ["invalid_api_key", "not_found"],
};

/**
 * Every error code a route can answer: the pipeline's for its access level, validation's for the
 * inputs it declares, `missing_symbol` for an empty trailing symbol, and the handler's own.
 */
export function routeErrorCodes(route: RouteSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>([...EVERY_ROUTE, ...BY_ACCESS[route.access]]);
  if (route.params || route.query) codes.add("invalid_parameter");
  if (route.body) codes.add("invalid_body");
  if (trailingSymbolParam(route.path)) codes.add("missing_symbol");
  for (const code of route.errors ?? []) codes.add(code);
  return [...codes];
}
