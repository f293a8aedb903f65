import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isLoopbackHost } from "../domain/loopback";
import type { DashboardEnv } from "./env";

export const SESSION_COOKIE = "ods_session";
export const LOGIN_COOKIE = "ods_login";

/** Served on this machine (`npm run dev` over plain http): the one place a cookie cannot be Secure. */
const onLoopback = (c: Context<DashboardEnv>) => isLoopbackHost(new URL(c.req.url).hostname);

/**
 * Cookies are HttpOnly and SameSite=Lax. Everywhere but loopback they are `__Host-` cookies (Secure,
 * `Path=/`, no Domain): only this origin over https can have set one, so no sibling subdomain can
 * plant a session or a sign-in attempt. On loopback they keep the bare name and `Path=/dashboard`.
 */
const cookieName = (c: Context<DashboardEnv>, name: string) => (onLoopback(c) ? name : `__Host-${name}`);

function cookieOptions(c: Context<DashboardEnv>, maxAgeSeconds: number) {
  const loopback = onLoopback(c);
  return { path: loopback ? "/dashboard" : "/", httpOnly: true, secure: !loopback, sameSite: "Lax" as const, maxAge: maxAgeSeconds };
}

export const readCookie = (c: Context<DashboardEnv>, name: string) => getCookie(c, cookieName(c, name));
export const writeCookie = (c: Context<DashboardEnv>, name: string, value: string, maxAgeSeconds: number) =>
  setCookie(c, cookieName(c, name), value, cookieOptions(c, maxAgeSeconds));
export const clearCookie = (c: Context<DashboardEnv>, name: string) => deleteCookie(c, cookieName(c, name), cookieOptions(c, 0));
