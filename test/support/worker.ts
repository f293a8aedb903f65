import { env, exports } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import type { z } from "zod";
import { ErrorEnvelopeSchema } from "../../src/http/error-schema";
import type { ErrorCode } from "../../src/http/errors";
import worker from "../../src/index";
import type { Bindings } from "../../src/env";

export interface TestBindings extends Bindings {
  TEST_DEAD_DATABASE_URL: string;
  TEST_OUTAGE_DATABASE_URL: string;
  TEST_OUTAGE_CONTROL: string;
  /** The date matrix's market databases, comma-separated, in the order of `MATRIX_MARKETS`. */
  TEST_MATRIX_URLS: string;
}

export const testEnv = env as unknown as TestBindings;

let ipCounter = 0;

/** A distinct client address per call, so per-IP limits only bite where a test means them to. */
function withClientIp(init: RequestInit = {}): RequestInit {
  const headers = new Headers(init.headers);
  if (!headers.has("CF-Connecting-IP")) {
    ipCounter++;
    headers.set("CF-Connecting-IP", `198.51.${(ipCounter >> 8) & 255}.${ipCounter & 255}`);
  }
  return { ...init, headers };
}

/** A request through the deployed Worker entry (same pipeline as production). */
export function call(path: string, init?: RequestInit): Promise<Response> {
  const entry = (exports as unknown as { default: { fetch(request: Request): Promise<Response> } }).default;
  return entry.fetch(new Request(`https://api.test${path}`, withClientIp(init)));
}

/** The Worker entry with some bindings replaced, e.g. a database nobody listens on. */
export async function callWith(overrides: Partial<TestBindings>, path: string, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`https://api.test${path}`, withClientIp(init)) as Parameters<typeof worker.fetch>[0];
  const res = await worker.fetch(request, { ...testEnv, ...overrides } as Bindings, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export type ErrorBody = z.output<typeof ErrorEnvelopeSchema>;

/** Asserts the spec's error envelope (the description's own schema, no other fields) and returns it. */
export async function expectError(res: Response, status: number, code: ErrorCode): Promise<ErrorBody> {
  const raw: unknown = await res.json();
  const parsed = ErrorEnvelopeSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`not the error envelope: ${JSON.stringify(raw)}`);
  const body = parsed.data;
  if (JSON.stringify(Object.keys(body).sort()) !== JSON.stringify(Object.keys(raw as object).sort())) {
    throw new Error(`fields outside the envelope: ${JSON.stringify(raw)}`);
  }
  if (res.status !== status || body.error !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(body)}`);
  }
  if (body.status !== status) throw new Error("body.status differs from the HTTP status");
  if (body.request_id !== res.headers.get("X-Request-ID")) throw new Error("request_id differs from X-Request-ID");
  if (Number.isNaN(Date.parse(body.timestamp))) throw new Error("timestamp is not ISO 8601");
  if (typeof body.message !== "string" || body.message.length === 0) throw new Error("message is empty");
  return body;
}
