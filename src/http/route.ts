import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env";

export type HttpMethod = "get" | "post" | "put";

/** Who may call a route: anyone, any valid key, a key of an entitled account, or the operator (admin API). */
export type Access = "public" | "key" | "entitled" | "admin";

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface RouteInput<P, Q, B = unknown> {
  params: P;
  query: Q;
  body: B;
}

/**
 * One endpoint: its contract (path, parameters, responses) and its handler. The router, the
 * method table behind 404/405 and the API description are all derived from these objects.
 */
export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/quotes/{symbol}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  access: Access;
  params?: P;
  query?: Q;
  /** JSON request body. */
  body?: B;
  responses: Record<number, ResponseSpec>;
  /** Error codes the route itself can answer, beyond the common ones of its access level. */
  errors?: number[];
  handler: (c: Context<AppEnv>, input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>) => Response | Promise<Response>;
  /** Extra paths answering with the same handler (e.g. a versioned alias). */
  aliases?: string[];
}

/** Keeps the schema types of a route literal while checking it against RouteSpec. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(spec: RouteSpec<P, Q, B>): RouteSpec {
  return spec as unknown as RouteSpec;
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
