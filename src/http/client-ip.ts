import type { Context } from "hono";

/** The caller's address as Cloudflare's edge reports it. */
export function clientIp(c: Context): string {
  return c.req.header("CF-Connecting-IP")?.trim() || "unknown";
}
