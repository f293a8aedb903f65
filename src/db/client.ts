import { neon, neonConfig, type NeonQueryFunction } from "@neondatabase/serverless";
import { drizzle, type NeonHttpDatabase } from "drizzle-orm/neon-http";
import * as schema from "./schema";

let configuredEndpoint: string | undefined;

/**
 * Points the Neon driver at a local SQL-over-HTTP server. The template's `{host}` and `{port}`
 * come from each connection string, so several databases (or a dead one, in tests) can coexist.
 */
export function useNeonEndpoint(template: string | undefined): void {
  if (!template || template === configuredEndpoint) return;
  configuredEndpoint = template;
  neonConfig.fetchEndpoint = (host: string, port: number | string | undefined) =>
    template.replace("{host}", host).replace("{port}", String(port || 5432));
}

let configuredTimeout: number | undefined;

/**
 * Bounds every query's round trip: a statement still running after `timeoutMs` is abandoned and
 * answered as an unavailable database (503 with Retry-After). Kept below the in-flight lease, so
 * a slow query can never let a request outlive its slot.
 */
export function boundQueries(timeoutMs: number): void {
  if (timeoutMs === configuredTimeout) return;
  configuredTimeout = timeoutMs;
  neonConfig.fetchFunction = (input: RequestInfo | URL, init?: RequestInit) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
  };
}

export type Database = NeonHttpDatabase<typeof schema>;

const databases = new Map<string, Database>();

/**
 * A drizzle client over Neon's HTTP protocol, one per URL per isolate: it holds no connection,
 * but building one derives the relational config of the whole schema, which is worth doing once.
 */
export function database(url: string): Database {
  let db = databases.get(url);
  if (!db) {
    db = drizzle({ client: neon(url), schema });
    databases.set(url, db);
  }
  return db;
}

/** A raw query function with a bounded wait, for probes. */
export function rawSql(url: string, timeoutMs: number): NeonQueryFunction<false, false> {
  return neon(url, { fetchOptions: { signal: AbortSignal.timeout(timeoutMs) } });
}
