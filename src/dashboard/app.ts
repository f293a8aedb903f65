import { Hono } from "hono";
import type { DashboardEnv } from "./env";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets";
import { dashboardHeaders, noStore, page, sameOriginForms } from "./middleware";
import { messagePage } from "./pages";
import { billingPages } from "./routes/billing";
import { keysPages } from "./routes/keys";
import { overviewPages } from "./routes/overview";
import { signIn } from "./routes/sign-in";
import { dashboardClientLimit } from "./throttle";

/**
 * The dashboard, on the API's Worker (`app.route("/dashboard", dashboard)`): server-rendered
 * pages, usable without JavaScript.
 */
export const dashboard = new Hono<DashboardEnv>({ strict: false });

// Once for every dashboard path, "/dashboard" itself and the assets included, the per-client limit
// first (DASHBOARD_RATE_LIMITER is sized for the assets too).
dashboard.use(dashboardClientLimit, dashboardHeaders, noStore, sameOriginForms);

dashboard.get("/assets/dashboard.css", (c) =>
  c.body(DASHBOARD_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=3600" }),
);
dashboard.get("/assets/dashboard.js", (c) =>
  c.body(DASHBOARD_JS, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=3600" }),
);

dashboard.route("/", overviewPages);
dashboard.route("/", signIn);
dashboard.route("/keys", keysPages);
dashboard.route("/billing", billingPages);

// Unknown dashboard paths get a page, not the API's JSON 404.
dashboard.all("*", (c) =>
  page(c, messagePage("Not found", "There is no such dashboard page.", { href: "/dashboard", label: "Go to the dashboard" }), 404),
);
