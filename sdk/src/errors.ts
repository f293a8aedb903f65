import type { components } from "./generated/api.js";
import type { ResponseMeta } from "./meta.js";

/** Every error code the API description names: the `error` of the one error envelope. */
export type ErrorCode = components["schemas"]["Error"]["error"];

/** What a non-2xx answer becomes when its body is not the API's envelope (a proxy's page, a cut connection). */
const CODE_BY_STATUS: Record<number, ErrorCode> = { 429: "rate_limited", 502: "upstream_error", 503: "service_unavailable" };

interface Envelope {
  error: ErrorCode;
  message: string;
  request_id?: string;
  required_plan?: string;
}

function isEnvelope(body: unknown): body is Envelope {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as Envelope).error === "string" &&
    typeof (body as Envelope).message === "string"
  );
}

/** The one error every failed call throws: the API's code, status, request id and, for `plan_upgrade_required`, the plan. */
export class OdsApiError extends Error {
  override readonly name = "OdsApiError";
  readonly code: ErrorCode;
  readonly status: number;
  /** Equals the response's `X-Request-ID`; quote it when contacting support. */
  readonly request_id: string | null;
  /** The plan that would allow the call (403 `plan_upgrade_required` only). */
  readonly required_plan: string | null;
  /** Headers of the failed response: `Retry-After`, `X-RateLimit-*`. */
  readonly meta: ResponseMeta;

  constructor(body: unknown, meta: ResponseMeta) {
    const envelope = isEnvelope(body) ? body : null;
    super(envelope?.message ?? `HTTP ${meta.status} without the API's error envelope.`);
    this.code = envelope?.error ?? CODE_BY_STATUS[meta.status] ?? "internal_error";
    this.status = meta.status;
    this.request_id = envelope?.request_id ?? meta.requestId;
    this.required_plan = envelope?.required_plan ?? null;
    this.meta = meta;
  }
}
