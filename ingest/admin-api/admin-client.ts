import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AdminApi } from "./admin-api";
import { isHttpsOrLoopback } from "../../src/domain/loopback";
import { DEV_DIR } from "../cli/config";

export type { AdminError, AdminResult } from "./admin-api";

/** Where the admin token of `npm run dev` is kept (git-ignored). */
export const DEV_ADMIN_TOKEN_FILE = join(DEV_DIR, "admin-token");
/** Where `npm run dev` writes the URL it serves on, so `npm run admin` finds it on any PORT. */
export const DEV_ADMIN_URL_FILE = join(DEV_DIR, "admin-url");

const saved = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim() : "");

/**
 * The admin API's base URL, checked: https anywhere, plain http only to this machine (the token
 * would otherwise cross the network in clear). Throws with the reason.
 */
export function checkedAdminUrl(baseUrl: string): string {
  const url = URL.parse(baseUrl);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new Error(`ADMIN_URL must be an https:// URL (got '${baseUrl}')`);
  }
  if (!isHttpsOrLoopback(baseUrl)) {
    throw new Error(
      `refusing plain http to ${url.hostname}: the admin token would travel in clear; use https:// (plain http only to localhost/127.0.0.1/[::1])`,
    );
  }
  return baseUrl.replace(/\/+$/, "");
}

/** The admin API over HTTP, for the CLI, `npm run dev`, the loaders and the bench. */
export class AdminClient extends AdminApi {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    token: string,
    /** Headers for a gate in front of the admin hostname, e.g. a Cloudflare Access service token. */
    gateHeaders: Record<string, string> = {},
  ) {
    const checked = checkedAdminUrl(baseUrl);
    super(async (path, init) => {
      try {
        return await fetch(checked + path, {
          ...init,
          headers: { ...gateHeaders, Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
          signal: AbortSignal.timeout(15_000),
        });
      } catch {
        throw new Error(`cannot reach the admin API at ${checked} (is the service running?)`);
      }
    });
    this.baseUrl = checked;
  }

  /** From ADMIN_URL / ADMIN_TOKEN (and ADMIN_ACCESS_CLIENT_ID/_SECRET), else the local dev server's saved URL and token. */
  static fromEnvironment(): AdminClient {
    const baseUrl = process.env.ADMIN_URL || saved(DEV_ADMIN_URL_FILE) || `http://127.0.0.1:${process.env.PORT ?? 8787}`;
    const token = process.env.ADMIN_TOKEN ?? saved(DEV_ADMIN_TOKEN_FILE);
    if (!token) throw new Error("no admin token: set ADMIN_TOKEN or start `npm run dev` (it writes .dev/admin-token)");
    // Behind Cloudflare Access (README, "Deploying"): the service token's id and secret.
    const accessId = process.env.ADMIN_ACCESS_CLIENT_ID;
    const accessSecret = process.env.ADMIN_ACCESS_CLIENT_SECRET;
    const gate: Record<string, string> =
      accessId && accessSecret ? { "CF-Access-Client-Id": accessId, "CF-Access-Client-Secret": accessSecret } : {};
    return new AdminClient(baseUrl, token, gate);
  }
}
