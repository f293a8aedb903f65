import { Hono, type Context } from "hono";
import { accessGate } from "../../access/gates";
import type { DashboardEnv } from "../env";
import { clearCookie, LOGIN_COOKIE, readCookie, SESSION_COOKIE, writeCookie } from "../cookies";
import { LOGIN_ATTEMPT_MS, saveLoginAttempt, takeLoginAttempt } from "../login-attempts";
import { currentSession, page } from "../middleware";
import { beginSignIn, completeSignIn, oidcSettings, SignInError } from "../oidc";
import { messagePage, signInPage } from "../pages";
import { openSession, revokeSession, SESSION_ABSOLUTE_MS } from "../sessions";
import { services } from "../../services";

const redirectUri = (c: Context<DashboardEnv>) => `${new URL(c.req.url).origin}/dashboard/callback`;

/** Single sign-on with the configured OpenID provider (code flow, PKCE), and signing out. */
export const signIn = new Hono<DashboardEnv>({ strict: false });

// Starting and finishing sign-ins write rows: the per-client limit of the public routes applies.
signIn.use("/login", accessGate("public"));
signIn.use("/callback", accessGate("public"));

signIn.get("/login", async (c) => {
  const settings = oidcSettings(c.get("config"));
  if (!settings) return page(c, signInPage({ configured: false }), 503);
  const { url, pending } = await beginSignIn(settings, redirectUri(c));
  const attempt = await saveLoginAttempt(services(c).control, pending);
  writeCookie(c, LOGIN_COOKIE, attempt, LOGIN_ATTEMPT_MS / 1000);
  return c.redirect(url.toString(), 302);
});

signIn.get("/callback", async (c) => {
  const settings = oidcSettings(c.get("config"));
  if (!settings) return page(c, signInPage({ configured: false }), 503);
  const db = services(c).control;
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
    return page(c, messagePage("Sign-in failed", "The identity provider's answer could not be verified; nothing was changed.", retry), 400);
  }
  const account = await services(c).controlPlane.identities.signIn(identity);
  // A new sign-in ends the session this browser held before (whoever it belonged to), so no cookie outlives its replacement.
  const previous = await currentSession(c);
  if (previous) await revokeSession(db, previous.id);
  const { token } = await openSession(db, c.get("config").SESSION_SECRET, account.id);
  writeCookie(c, SESSION_COOKIE, token, SESSION_ABSOLUTE_MS / 1000);
  return c.redirect("/dashboard", 303);
});

signIn.post("/logout", async (c) => {
  const session = await currentSession(c);
  if (session) await revokeSession(services(c).control, session.id);
  clearCookie(c, SESSION_COOKIE);
  return c.redirect("/dashboard", 303);
});
