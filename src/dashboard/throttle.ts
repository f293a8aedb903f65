import type { MiddlewareHandler } from "hono";
import type { DashboardEnv } from "./env";
import { clientIp } from "../http/client-ip";
import { LIMITER_RETRY_AFTER_SECONDS } from "../http/limiter-window";
import { messagePage } from "./pages";

/**
 * Per-client limit of every `/dashboard/*` request (`DASHBOARD_RATE_LIMITER`), before anything
 * else runs: a client sending pages faster than any person clicks gets a 429 page, whatever its cookie.
 */
export const dashboardClientLimit: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  const { success } = await c.env.DASHBOARD_RATE_LIMITER.limit({ key: `dashboard:${clientIp(c)}` });
  if (!success) {
    c.header("Retry-After", LIMITER_RETRY_AFTER_SECONDS);
    c.header("Cache-Control", "no-store");
    return c.html(
      messagePage("Too many requests", "This address is sending requests faster than the dashboard serves them. Wait a minute.", {
        href: "/dashboard",
        label: "Back to the dashboard",
      }),
      429,
    );
  }
  await next();
};

/**
 * Per-account limit of the signed-in actions that call the payment provider or write keys
 * (`DASHBOARD_ACTION_LIMITER`, keyed by the session's account): after `requireSession`.
 */
export const accountActionLimit: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  const { success } = await c.env.DASHBOARD_ACTION_LIMITER.limit({ key: `account:${c.get("session").accountId}` });
  if (!success) {
    c.header("Retry-After", LIMITER_RETRY_AFTER_SECONDS);
    return c.html(
      messagePage(
        "Too many changes",
        "Your account has made too many changes in the last minute; nothing was changed. Try again in a minute.",
        { href: "/dashboard", label: "Back to the dashboard" },
        true,
      ),
      429,
    );
  }
  await next();
};
