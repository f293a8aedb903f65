import type { Context, MiddlewareHandler } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { DashboardEnv } from "./env";
import { pageHeaders } from "../http/page-headers";
import { clearCookie, readCookie, SESSION_COOKIE } from "./cookies";
import { messagePage } from "./pages";
import { findSession, touchSession, type DashboardSession } from "./sessions";
import { services } from "../services";

export type DashboardContext = Context<DashboardEnv>;

export function page(c: DashboardContext, markup: Parameters<Context["html"]>[0], status: ContentfulStatusCode = 200) {
  return c.html(markup, status);
}

/** The live session of the browser's session cookie, if any. */
export const currentSession = (c: DashboardContext): Promise<DashboardSession | undefined> =>
  findSession(services(c).control, c.get("config").SESSION_SECRET, readCookie(c, SESSION_COOKIE));

/** The origin of a local Stripe stand-in's Checkout and portal pages (`STRIPE_API_URL` on loopback), else nothing more. */
function localStripePages(c: Context): string {
  const api = (c as Context<DashboardEnv>).get("config")?.STRIPE_API_URL;
  return api?.startsWith("http://") ? new URL(api).origin : "'self'";
}

/** CSP without inline script or style; the dashboard is never framed; no referrer leaves it. */
export const dashboardHeaders = pageHeaders({
  allow: {
    // Checkout and the customer portal are reached by a form's redirect, which form-action governs;
    // with a local Stripe stand-in (`npm run dev`), its pages stand in for them.
    formAction: ["'self'", "https://checkout.stripe.com", "https://billing.stripe.com", localStripePages],
  },
});

/** Pages show account state: never stored by a browser or a proxy. */
export const noStore: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  await next();
  if (!c.req.path.startsWith("/dashboard/assets/")) c.header("Cache-Control", "no-store");
};

/** State-changing forms must come from our own origin (Origin or Sec-Fetch-Site), besides SameSite cookies. */
const originCheck = csrf();
export const sameOriginForms: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  try {
    return await originCheck(c, next);
  } catch (err) {
    if (err instanceof HTTPException && err.status === 403) {
      return page(
        c,
        messagePage("Request refused", "This form was not sent from the dashboard, so nothing was changed.", {
          href: "/dashboard",
          label: "Back to the dashboard",
        }),
        403,
      );
    }
    throw err;
  }
};

/** Pages behind sign-in: a missing, expired or revoked session (or an API key) goes to the sign-in page. */
export const requireSession: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  const session = await currentSession(c);
  if (!session) {
    if (readCookie(c, SESSION_COOKIE) !== undefined) clearCookie(c, SESSION_COOKIE);
    return c.redirect("/dashboard", 303);
  }
  c.set("session", session);
  c.executionCtx.waitUntil(touchSession(services(c).control, session));
  await next();
};
