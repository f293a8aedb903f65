import type { Context, Hono, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../app-env";
import { controlPlaneFor } from "../control/for-request";
import { loadEntitlementSnapshot } from "../control/snapshot";
import { usageSince } from "../control/usage";
import { controlDatabase } from "../db/for-request";
import { addDays } from "../domain/calendar";
import { usageDay } from "../limits/usage-day";
import { API_PLAN, evaluateEntitlement } from "../domain/entitlement";
import { limitsFor, TRIAL_PLAN } from "../domain/plans";
import { DAY_MS } from "../domain/time";
import { accessGate } from "../access/gates";
import { billingSettings, Stripe, stripeClient } from "../billing/stripe-client";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets";
import { LOGIN_ATTEMPT_MS, saveLoginAttempt, takeLoginAttempt } from "./login-attempts";
import { beginSignIn, completeSignIn, SignInError, type OidcSettings } from "./oidc";
import { billingPage, keysPage, messagePage, overviewPage, revokePage, signInPage } from "./pages";
import { findSession, openSession, revokeSession, SESSION_ABSOLUTE_MS, touchSession } from "./sessions";
import { accountActionLimit, dashboardClientLimit } from "./throttle";

const SESSION_COOKIE = "ods_session";
const LOGIN_COOKIE = "ods_login";
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/;

type DashboardContext = Context<AppEnv>;

function oidcSettings(c: Context<AppEnv>): OidcSettings | undefined {
  const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } = c.get("config");
  return OIDC_ISSUER && OIDC_CLIENT_ID && OIDC_CLIENT_SECRET
    ? { issuer: OIDC_ISSUER, clientId: OIDC_CLIENT_ID, clientSecret: OIDC_CLIENT_SECRET }
    : undefined;
}

/** Served on this machine (`npm run dev` over plain http): the one place a cookie cannot be Secure. */
const onLoopback = (c: Context<AppEnv>) => LOOPBACK.test(new URL(c.req.url).hostname);

/**
 * Cookies are HttpOnly and SameSite=Lax. Everywhere but loopback they are `__Host-` cookies (Secure,
 * `Path=/`, no Domain): only this origin over https can have set one, so no sibling subdomain can
 * plant a session or a sign-in attempt. On loopback they keep the bare name and `Path=/dashboard`.
 */
const cookieName = (c: Context<AppEnv>, name: string) => (onLoopback(c) ? name : `__Host-${name}`);

function cookieOptions(c: Context<AppEnv>, maxAgeSeconds: number) {
  const loopback = onLoopback(c);
  return { path: loopback ? "/dashboard" : "/", httpOnly: true, secure: !loopback, sameSite: "Lax" as const, maxAge: maxAgeSeconds };
}

const readCookie = (c: Context<AppEnv>, name: string) => getCookie(c, cookieName(c, name));
const writeCookie = (c: Context<AppEnv>, name: string, value: string, maxAgeSeconds: number) =>
  setCookie(c, cookieName(c, name), value, cookieOptions(c, maxAgeSeconds));
const clearCookie = (c: Context<AppEnv>, name: string) => deleteCookie(c, cookieName(c, name), cookieOptions(c, 0));

const redirectUri = (c: Context<AppEnv>) => `${new URL(c.req.url).origin}/dashboard/callback`;

function page(c: Context<AppEnv>, markup: Parameters<Context["html"]>[0], status: ContentfulStatusCode = 200) {
  return c.html(markup, status);
}

/** The origin of a local Stripe stand-in's Checkout and portal pages (`STRIPE_API_URL` on loopback), else nothing more. */
function localStripePages(c: Context): string {
  const api = (c as Context<AppEnv>).get("config")?.STRIPE_API_URL;
  return api?.startsWith("http://") ? new URL(api).origin : "'self'";
}

/** CSP without inline script or style; the dashboard is never framed; no referrer leaves it. */
const dashboardHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    // Checkout and the customer portal are reached by a form's redirect, which form-action governs;
    // with a local Stripe stand-in (`npm run dev`), its pages stand in for them.
    formAction: ["'self'", "https://checkout.stripe.com", "https://billing.stripe.com", localStripePages],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    objectSrc: ["'none'"],
  },
  referrerPolicy: "no-referrer",
  xFrameOptions: "DENY",
});

/** Pages show account state: never stored by a browser or a proxy. */
const noStore: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!c.req.path.startsWith("/dashboard/assets/")) c.header("Cache-Control", "no-store");
};

/** State-changing forms must come from our own origin (Origin or Sec-Fetch-Site), besides SameSite cookies. */
const originCheck = csrf();
const sameOriginForms: MiddlewareHandler<AppEnv> = async (c, next) => {
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
const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  const db = controlDatabase(c);
  const session = await findSession(db, c.get("config").SESSION_SECRET, readCookie(c, SESSION_COOKIE));
  if (!session) {
    if (readCookie(c, SESSION_COOKIE) !== undefined) clearCookie(c, SESSION_COOKIE);
    return c.redirect("/dashboard", 303);
  }
  c.set("session", session);
  c.executionCtx.waitUntil(touchSession(db, session));
  await next();
};

const USAGE_CHART_DAYS = 30;

/** Every day of the chart, zero where nothing was recorded; today is the live count when it is ahead of the last write. */
function chartDays(since: string, recorded: { date: string; requests: number }[], today: { date: string; requests: number }) {
  const byDate = new Map(recorded.map((d) => [d.date, d.requests]));
  byDate.set(today.date, Math.max(byDate.get(today.date) ?? 0, today.requests));
  return Array.from({ length: USAGE_CHART_DAYS }, (_, i) => {
    const date = addDays(since, i);
    return { date, requests: byDate.get(date) ?? 0 };
  });
}

async function overview(c: DashboardContext) {
  const session = c.get("session");
  const control = controlPlaneFor(c);
  const db = controlDatabase(c);
  const today = usageDay(Date.now()).date;
  const since = addDays(today, 1 - USAGE_CHART_DAYS);
  const [view, account, snapshot, usage, recorded] = await Promise.all([
    control.accountView(session.accountName),
    control.findAccount(session.accountName),
    loadEntitlementSnapshot(db, session.accountId),
    c.env.ACCOUNT_LIMITER.getByName(String(session.accountId)).requestsToday(),
    usageSince(db, session.accountId, since),
  ]);
  if (!view.ok || !account) return c.redirect("/dashboard", 303);
  const now = Date.now();
  const entitlement = evaluateEntitlement(snapshot, now);
  const sub = view.value.subscription;
  const onTrial = sub?.plan === TRIAL_PLAN.id && sub.trialEnd !== null;
  const status = sub?.status;
  return page(
    c,
    overviewPage({
      account: view.value,
      email: session.email,
      entitled: entitlement.entitled,
      reason: entitlement.entitled ? null : entitlement.reason,
      requestsToday: usage.today,
      trialDaysLeft: onTrial ? Math.max(0, Math.ceil((Date.parse(sub.trialEnd as string) - now) / DAY_MS)) : null,
      canStartTrial: account.trialStartedAt === null && status !== "active" && status !== "past_due",
      usage: chartDays(since, recorded, { date: usage.date, requests: usage.today }),
    }),
  );
}

async function keys(
  c: DashboardContext,
  options: { created?: { key: string; prefix: string }; error?: string } = {},
  status: ContentfulStatusCode = 200,
) {
  const session = c.get("session");
  const control = controlPlaneFor(c);
  const [list, view] = await Promise.all([control.listKeys(session.accountName), control.accountView(session.accountName)]);
  const maxActive = limitsFor(view.ok ? view.value.subscription?.plan : undefined).activeKeys;
  return page(c, keysPage(list.ok ? list.value : [], { ...options, maxActive }), status);
}

/** The session's own key with this id, or undefined (another account's key is as unknown as a missing one). */
async function ownKey(c: DashboardContext) {
  const id = c.req.param("id") ?? "";
  if (!/^\d{1,9}$/.test(id)) return undefined;
  const list = await controlPlaneFor(c).listKeys(c.get("session").accountName);
  return list.ok ? list.value.find((k) => k.id === Number(id) && k.revokedAt === null) : undefined;
}

const unknownKey = (c: DashboardContext) =>
  page(
    c,
    messagePage(
      "Key not found",
      "There is no active key with this id on your account.",
      { href: "/dashboard/keys", label: "Back to your keys" },
      true,
    ),
    404,
  );

const BACK_TO_BILLING = { href: "/dashboard/billing", label: "Back to billing" };

async function billing(c: DashboardContext) {
  const settings = billingSettings(c.get("config"));
  if (!settings) return page(c, billingPage({ configured: false, subscription: null, canSubscribe: false, canManage: false }));
  const session = c.get("session");
  const control = controlPlaneFor(c);
  const [view, customer, live] = await Promise.all([
    control.accountView(session.accountName),
    control.providerCustomer(session.accountId),
    control.hasLiveProviderSubscription(session.accountId),
  ]);
  const subscription = view.ok ? view.value.subscription : null;
  const paying = live || (subscription?.plan === API_PLAN && (subscription.status === "active" || subscription.status === "past_due"));
  return page(
    c,
    billingPage({
      configured: true,
      subscription,
      canSubscribe: !paying,
      canManage: customer !== null,
      notice:
        c.req.query("checkout") === "success" ? "Thank you: your subscription starts as soon as the payment is confirmed." : undefined,
    }),
  );
}

const providerFailed = (c: DashboardContext) =>
  page(
    c,
    messagePage(
      "Billing unavailable",
      "The payment provider could not be reached; nothing was charged. Try again shortly.",
      BACK_TO_BILLING,
      true,
    ),
    502,
  );

/** Runs a billing action with the Stripe client; a provider failure is a page, not a 500. */
async function withStripe(
  c: DashboardContext,
  action: (stripe: Stripe, settings: NonNullable<ReturnType<typeof billingSettings>>) => Promise<Response>,
): Promise<Response> {
  const settings = billingSettings(c.get("config"));
  if (!settings) return page(c, messagePage("Billing", "Billing is not configured on this deployment.", BACK_TO_BILLING, true), 404);
  try {
    return await action(stripeClient(settings), settings);
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripeError)) throw err;
    console.warn(JSON.stringify({ level: "warn", event: "billing_provider_failed", type: err.type }));
    return providerFailed(c);
  }
}

/** The dashboard, on the API's Worker: server-rendered pages, usable without JavaScript. */
export function mountDashboard(app: Hono<AppEnv>): void {
  // The per-client limit first: "/dashboard/*" covers "/dashboard" too, and the assets (DASHBOARD_RATE_LIMITER is sized for them).
  app.use("/dashboard/*", dashboardClientLimit);
  app.use("/dashboard", dashboardHeaders, noStore);
  app.use("/dashboard/*", dashboardHeaders, noStore, sameOriginForms);

  app.get("/dashboard/assets/dashboard.css", (c) =>
    c.body(DASHBOARD_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=3600" }),
  );
  app.get("/dashboard/assets/dashboard.js", (c) =>
    c.body(DASHBOARD_JS, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=3600" }),
  );

  app.get("/dashboard", async (c) => {
    const session = await findSession(controlDatabase(c), c.get("config").SESSION_SECRET, readCookie(c, SESSION_COOKIE));
    if (!session) return page(c, signInPage({ configured: oidcSettings(c) !== undefined }));
    c.set("session", session);
    return overview(c);
  });

  // Starting and finishing sign-ins write rows: the per-client limit of the public routes applies.
  app.use("/dashboard/login", accessGate("public"));
  app.use("/dashboard/callback", accessGate("public"));
  app.get("/dashboard/login", async (c) => {
    const settings = oidcSettings(c);
    if (!settings) return page(c, signInPage({ configured: false }), 503);
    const { url, pending } = await beginSignIn(settings, redirectUri(c));
    const attempt = await saveLoginAttempt(controlDatabase(c), pending);
    writeCookie(c, LOGIN_COOKIE, attempt, LOGIN_ATTEMPT_MS / 1000);
    return c.redirect(url.toString(), 302);
  });

  app.get("/dashboard/callback", async (c) => {
    const settings = oidcSettings(c);
    if (!settings) return page(c, signInPage({ configured: false }), 503);
    const db = controlDatabase(c);
    const pending = await takeLoginAttempt(db, readCookie(c, LOGIN_COOKIE));
    clearCookie(c, LOGIN_COOKIE);
    const retry = { href: "/dashboard/login", label: "Sign in again" };
    if (!pending) {
      return page(
        c,
        messagePage("Sign-in failed", "This sign-in has expired, was already used, or was started in another browser.", retry),
        400,
      );
    }
    let identity;
    try {
      identity = await completeSignIn(settings, redirectUri(c), new URL(c.req.url), pending);
    } catch (err) {
      if (!(err instanceof SignInError)) throw err;
      console.warn(JSON.stringify({ level: "warn", event: "sign_in_refused", reason: err.message }));
      return page(
        c,
        messagePage("Sign-in failed", "The identity provider's answer could not be verified; nothing was changed.", retry),
        400,
      );
    }
    const account = await controlPlaneFor(c).signIn(identity);
    // A new sign-in ends the session this browser held before (whoever it belonged to), so no cookie outlives its replacement.
    const secrets = c.get("config").SESSION_SECRET;
    const previous = await findSession(db, secrets, readCookie(c, SESSION_COOKIE));
    if (previous) await revokeSession(db, previous.id);
    const { token } = await openSession(db, secrets, account.id);
    writeCookie(c, SESSION_COOKIE, token, SESSION_ABSOLUTE_MS / 1000);
    return c.redirect("/dashboard", 303);
  });

  app.use("/dashboard/keys", requireSession);
  app.use("/dashboard/keys/*", requireSession);
  app.use("/dashboard/trial", requireSession);
  app.use("/dashboard/billing", requireSession);
  app.use("/dashboard/billing/*", requireSession);

  // Actions that write keys or call the payment provider: a per-account budget besides the per-client one.
  for (const path of [
    "/dashboard/keys",
    "/dashboard/keys/:id/revoke",
    "/dashboard/trial",
    "/dashboard/billing/checkout",
    "/dashboard/billing/portal",
  ]) {
    app.post(path, accountActionLimit);
  }

  app.get("/dashboard/keys", (c) => keys(c));
  app.post("/dashboard/keys", async (c) => {
    const created = await controlPlaneFor(c).createKey(c.get("session").accountName);
    if (!created.ok) return keys(c, { error: created.message }, created.reason === "key_limit" ? 409 : 400);
    return keys(c, { created: created.value }, 201);
  });
  app.get("/dashboard/keys/:id/revoke", async (c) => {
    const key = await ownKey(c);
    return key ? page(c, revokePage(key)) : unknownKey(c);
  });
  app.post("/dashboard/keys/:id/revoke", async (c) => {
    const key = await ownKey(c);
    if (!key) return unknownKey(c);
    await controlPlaneFor(c).revokeKey(key.id);
    return c.redirect("/dashboard/keys", 303);
  });

  app.post("/dashboard/trial", async (c) => {
    const started = await controlPlaneFor(c).startTrial(c.get("session").accountName);
    if (!started.ok) {
      return page(c, messagePage("Trial not started", started.message, { href: "/dashboard", label: "Back to the overview" }, true), 409);
    }
    return c.redirect("/dashboard", 303);
  });

  app.get("/dashboard/billing", billing);
  app.post("/dashboard/billing/checkout", (c) =>
    withStripe(c, async (stripe, settings) => {
      const session = c.get("session");
      const origin = new URL(c.req.url).origin;
      // A second Checkout would make a second subscription: the existing one is managed in the portal.
      if (await controlPlaneFor(c).hasLiveProviderSubscription(session.accountId)) {
        return page(
          c,
          messagePage(
            "Already subscribed",
            "This account already has a subscription; change or renew it under Manage billing.",
            BACK_TO_BILLING,
            true,
          ),
          409,
        );
      }
      const customer = await controlPlaneFor(c).providerCustomer(session.accountId);
      const checkout = await stripe.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price: settings.priceBasic, quantity: 1 }],
        client_reference_id: String(session.accountId),
        // The webhook finds the account from the subscription's metadata.
        subscription_data: { metadata: { account_id: String(session.accountId) } },
        ...(customer ? { customer } : {}),
        success_url: `${origin}/dashboard/billing?checkout=success`,
        cancel_url: `${origin}/dashboard/billing`,
      });
      return checkout.url ? c.redirect(checkout.url, 303) : providerFailed(c);
    }),
  );
  app.post("/dashboard/billing/portal", (c) =>
    withStripe(c, async (stripe) => {
      const customer = await controlPlaneFor(c).providerCustomer(c.get("session").accountId);
      if (!customer) {
        return page(
          c,
          messagePage(
            "No billing account yet",
            "Subscribe first; the customer portal manages an existing subscription.",
            BACK_TO_BILLING,
            true,
          ),
          409,
        );
      }
      const portal = await stripe.billingPortal.sessions.create({ customer, return_url: `${new URL(c.req.url).origin}/dashboard/billing` });
      return c.redirect(portal.url, 303);
    }),
  );

  app.post("/dashboard/logout", async (c) => {
    const db = controlDatabase(c);
    const session = await findSession(db, c.get("config").SESSION_SECRET, readCookie(c, SESSION_COOKIE));
    if (session) await revokeSession(db, session.id);
    clearCookie(c, SESSION_COOKIE);
    return c.redirect("/dashboard", 303);
  });

  // Unknown dashboard paths get a page, not the API's JSON 404.
  app.all("/dashboard/*", (c) =>
    page(c, messagePage("Not found", "There is no such dashboard page.", { href: "/dashboard", label: "Go to the dashboard" }), 404),
  );
}
