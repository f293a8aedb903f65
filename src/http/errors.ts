import type { Context } from "hono";
import { ENTITLEMENT_REASONS, type EntitlementReason } from "../domain/entitlement-reasons";

/** Every entitlement reason is a 403 of its own name. */
const ENTITLEMENT_STATUS = Object.fromEntries(ENTITLEMENT_REASONS.map((reason) => [reason, 403])) as Record<EntitlementReason, 403>;

/** Every error code the API can answer, with its HTTP status. The single source for both. */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  missing_symbol: 400,
  too_many_symbols: 400,
  invalid_range: 400,
  out_of_range: 400,
  invalid_body: 400,
  credentials_in_query: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  ...ENTITLEMENT_STATUS,
  wrong_credential_type: 403,
  origin_forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  key_limit_reached: 409,
  trial_already_used: 409,
  /** `/v1/stream` opened without a WebSocket upgrade or `Accept: text/event-stream` (not in the spec's table). */
  upgrade_required: 426,
  rate_limited: 429,
  too_many_concurrent_requests: 429,
  /** The account already holds its streams' cap (not in the spec's table: the spec has no streams). */
  too_many_streams: 429,
  too_many_auth_failures: 429,
  internal_error: 500,
  upstream_error: 502,
  service_unavailable: 503,
  query_timeout: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export interface ApiErrorOptions {
  /** Extra body fields (e.g. `required_plan`). */
  fields?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The one error type handlers throw; rendered into the spec's envelope in one place. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  readonly fields: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.fields = options.fields ?? {};
    this.headers = options.headers ?? {};
  }
}

export interface ErrorEnvelope {
  error: ErrorCode;
  message: string;
  status: number;
  timestamp: string;
  request_id: string;
  [extra: string]: unknown;
}

/** An ApiError as the spec's envelope. */
export function errorEnvelope(err: ApiError, requestId: string): ErrorEnvelope {
  return {
    ...err.fields,
    error: err.code,
    message: err.message,
    status: err.status,
    timestamp: new Date().toISOString(),
    request_id: requestId,
  };
}

/** Renders an ApiError as the spec's envelope, with its headers and the request ID. */
export function errorResponse(c: Context, err: ApiError): Response {
  const requestId = (c.get("requestId" as never) as string | undefined) ?? crypto.randomUUID();
  const body = errorEnvelope(err, requestId);
  const headers = new Headers(err.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("X-Request-ID", requestId);
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

/** 500 for a failure of ours: the details go to the log, never on the wire. */
export function internalError(): ApiError {
  return new ApiError("internal_error", "An internal error occurred. Quote the request_id when contacting support.");
}

/** 404 for a path no route serves; the echoed path is bounded, whatever a client sends. */
export function noEndpoint(path: string): ApiError {
  return new ApiError("not_found", `No endpoint at ${path.length > 120 ? `${path.slice(0, 120)}…` : path}.`);
}

/** 404 for a ticker outside our universe: one wording on every route. */
export function unknownSymbol(symbol: string): ApiError {
  return new ApiError("not_found", `Unknown symbol ${symbol}.`);
}
