import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { rememberedLockout, rememberLockout } from "./lockout-memory";
import { clientIp } from "../http/client-ip";
import { ApiError, noEndpoint } from "../http/errors";
import { isWellFormedAdminToken } from "../domain/admin-token";
import { authenticationFailed, lockedOut } from "./authenticate";
import { secretsEqual } from "./secrets";
import { LIMITER_RETRY_AFTER_SECONDS } from "../http/limiter-window";

const ADMIN_REALM = 'realm="options-data-service-admin"';

/** The request's hostname, lower-case, without a port. */
function hostnameOf(c: Context<AppEnv>): string {
  return new URL(c.req.url).hostname.toLowerCase();
}

/**
 * Whether this request may reach the admin API at all: a token is configured and, when
 * `ADMIN_HOSTNAME` is set, the request came to that hostname (elsewhere the API does not exist).
 */
export function adminServedHere(c: Context<AppEnv>): boolean {
  const config = c.get("config");
  if (!config.ADMIN_TOKEN) return false;
  return config.ADMIN_HOSTNAME === undefined || hostnameOf(c) === config.ADMIN_HOSTNAME;
}

/** The ingestor's wake-up of the stream shards after each commit (its route: src/routes/admin/market.ts). */
export const STREAM_WAKE_PATH = "/admin/streams/wake";

/**
 * The internal admin API: `Authorization: Bearer <ADMIN_TOKEN>`; absent entirely when no token
 * is configured or the request came to another hostname than `ADMIN_HOSTNAME`. Before the token
 * is looked at: the client's admin call limit (the stream wake-ups have their own), then its
 * lockout. Then the token's format (no I/O) and a constant-time comparison; every failure counts
 * against the client like a wrong API key.
 */
export const adminGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!adminServedHere(c)) throw noEndpoint(c.req.path);
  const token = c.get("config").ADMIN_TOKEN as string;
  const ip = clientIp(c);
  // The ingestor wakes the stream shards after every commit: more often than any operator calls.
  const limiter = c.req.path === STREAM_WAKE_PATH ? c.env.STREAM_WAKE_LIMITER : c.env.ADMIN_RATE_LIMITER;
  const { success } = await limiter.limit({ key: ip });
  if (!success) {
    throw new ApiError("rate_limited", "Too many admin calls from this address; slow down.", {
      headers: { "Retry-After": LIMITER_RETRY_AFTER_SECONDS },
    });
  }
  const remembered = rememberedLockout(ip);
  if (remembered > 0) throw lockedOut(remembered);
  const state = await c.env.AUTH_GUARD.getByName(ip).lockout();
  rememberLockout(ip, state);
  if (state.locked) throw lockedOut(state.retryAfterSeconds);
  const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header("Authorization")?.trim() ?? "")?.[1] ?? "";
  if (!isWellFormedAdminToken(presented) || !secretsEqual(presented, token)) {
    await authenticationFailed(c, "invalid_api_key", "The admin token is missing or wrong.", ADMIN_REALM);
  }
  await next();
};

/** One admin call as logged: who (client address), what (method, path, what it touched), when, and the outcome. Never the token or a body. */
export interface AdminCallRecord {
  level: "info" | "warn";
  event: "admin_call";
  at: string;
  requestId: string;
  client: string;
  host: string;
  method: string;
  path: string;
  status: number;
  account?: string;
  keyId?: number;
}

/** The log record of an admin call; pure, so the format is testable on its own. */
export function adminCallRecord(input: {
  at: Date;
  requestId: string;
  client: string;
  url: string;
  method: string;
  status: number;
}): AdminCallRecord {
  const url = new URL(input.url);
  const path = url.pathname;
  const account = /^\/admin\/accounts\/([^/]+)/.exec(path)?.[1];
  const keyId = /^\/admin\/keys\/(\d+)(\/|$)/.exec(path)?.[1];
  let accountName: string | undefined;
  try {
    accountName = account === undefined ? undefined : decodeURIComponent(account);
  } catch {
    accountName = account;
  }
  return {
    level: input.status >= 400 ? "warn" : "info",
    event: "admin_call",
    at: input.at.toISOString(),
    requestId: input.requestId,
    client: input.client,
    host: url.hostname,
    method: input.method,
    // The path only: the admin API takes no query, and a query could carry anything.
    path,
    status: input.status,
    ...(accountName !== undefined ? { account: accountName } : {}),
    ...(keyId !== undefined ? { keyId: Number(keyId) } : {}),
  };
}

/**
 * Logs every call under `/admin/` once its outcome is known (refusals included), one JSON line
 * each, while an admin API is configured. Mounted ahead of the routes, so it sees the final status.
 */
export const adminAudit: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!c.get("config").ADMIN_TOKEN) return;
  const record = adminCallRecord({
    at: new Date(),
    requestId: c.get("requestId") ?? "",
    client: clientIp(c),
    url: c.req.url,
    method: c.req.method,
    status: c.res.status,
  });
  console.log(JSON.stringify(record));
};
