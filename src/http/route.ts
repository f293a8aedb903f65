import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env";
import type { ErrorCode } from "./errors";

export type HttpMethod = "get" | "post" | "put";

/** Who may call a route: anyone, any valid key, a key of an entitled account, or the operator (admin API). */
export type Access = "public" | "key" | "entitled" | "admin";

/**
 * How a route's answer is made. `snapshot`: a function of the loaded market snapshot, served
 * through `snapshotResponse` from the edge cache (warm, no database round trip). `per-request`:
 * computed on every request (live reads, accounts, flow, the screener, or nothing to cache).
 */
export type Caching = "snapshot" | "per-request";

export interface HeaderDoc {
  description: string;
  schema: Record<string, unknown>;
}

/** The success response: its status (default 200), its body schema and the headers it documents. */
export interface SuccessSpec<R extends z.ZodType> {
  status?: 200 | 201;
  description: string;
  schema?: R;
  headers?: Record<string, HeaderDoc>;
}

/** A further non-error response a route documents (e.g. 304, or readiness's 503 with its own body). */
export interface OtherResponseSpec {
  description: string;
  schema?: z.ZodType;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * What a handler returns: the response body, typed by the route's schema and rendered as JSON
 * with the success status (or one the handler set with `c.status`), or a finished Response for
 * the rare route that needs one (a 304, a raw document).
 */
export type Reply<R extends z.ZodType> = z.input<R> | Response;

/**
 * One endpoint: its contract (path, parameters, responses, error codes) and its handler. The
 * router, the method table behind 404/405 and the API description are all derived from these.
 */
export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/quotes/{symbol}`. */
  path: string;
  /** Extra paths answering with the same handler (e.g. a versioned alias). */
  aliases?: string[];
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  access: Access;
  caching: Caching;
  params?: P;
  query?: Q;
  /** JSON request body. */
  body?: B;
  response: SuccessSpec<R>;
  otherResponses?: Record<number, OtherResponseSpec>;
  /**
   * Error codes the handler itself can answer. Those of the pipeline (access level, parameter
   * validation, an empty symbol path) are added by the description; see `routeErrorCodes`.
   */
  errors?: ErrorCode[];
  // A method, so a list of routes with different schemas is still a list of RouteSpec.
  handler(c: Context<AppEnv>, input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Reply<R> | Promise<Reply<R>>;
}

/** Checks a route literal against RouteSpec and keeps its schema types (for the handler and for tests). */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(
  spec: RouteSpec<P, Q, B, R>,
): RouteSpec<P, Q, B, R> {
  return spec;
}

/** `/v1/quotes/{symbol}` → `/v1/quotes/:symbol` for Hono. */
export function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** Regular expression matching concrete request paths of an OpenAPI-style path. */
export function pathPattern(path: string): RegExp {
  const escape = (part: string) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${path
      .split(/\{\w+\}/)
      .map(escape)
      .join("[^/]+")}/?$`,
  );
}

/** The name of a trailing symbol parameter (`/v1/iv/{symbol}` → `symbol`): left empty, it is the spec's `missing_symbol`. */
export function trailingSymbolParam(path: string): { prefix: string; name: string } | undefined {
  const match = /^(.*)\/\{(\w*[sS]ymbol)\}$/.exec(path);
  return match ? { prefix: match[1] as string, name: match[2] as string } : undefined;
}
