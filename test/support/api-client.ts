import type { z } from "zod";
import type { RouteSpec } from "../../src/http/route";
import { bearer, newAccount } from "./accounts";
import { contractBody } from "./contract";
import { call } from "./worker";

/** A fresh account's API client: its key on every request, answers read through the route's own contract. */
export interface ApiClient {
  key: string;
  /** The key as request options, for `callWith` and friends. */
  auth: RequestInit;
  /** The raw response (status, headers, error envelopes); `init` adds headers or a method and body. */
  get(path: string, init?: RequestInit): Promise<Response>;
  /** The body of a `status` (200) answer, checked field by field against the route's response schema. */
  read<S extends z.ZodType>(route: RouteSpec<z.ZodType, z.ZodType, z.ZodType, S>, path: string, status?: number): Promise<z.output<S>>;
}

/** A client of a new account (active subscription unless `options` say otherwise) and its first key. */
export async function apiClient(options: Parameters<typeof newAccount>[0] = {}): Promise<ApiClient> {
  const key = (await newAccount(options)).keys[0]!.key;
  const auth = bearer(key);
  const get = (path: string, init: RequestInit = {}) =>
    call(path, { ...init, headers: { ...(auth.headers as Record<string, string>), ...(init.headers as Record<string, string>) } });
  return { key, auth, get, read: async (route, path, status = 200) => contractBody(route, await get(path), status) };
}
