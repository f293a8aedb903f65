/**
 * A dashboard sign-in over plain HTTP, as a browser without JavaScript makes it: the dashboard's
 * sign-in link, the local OpenID provider's login and consent forms, the callback. For tests that
 * need a signed-in session from a running service without driving a browser (the browser itself
 * is tested in test/dashboard/dashboard.browser.test.ts).
 */

/** Cookies per origin (the servers are on one host, each reads only its own). */
class CookieJar {
  #byOrigin = new Map<string, Map<string, string>>();

  take(url: string, res: Response): void {
    const origin = new URL(url).origin;
    const cookies = this.#byOrigin.get(origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || pair.slice(at + 1).trim() === "";
      if (expired) cookies.delete(name);
      else cookies.set(name, pair.slice(at + 1).trim());
    }
    this.#byOrigin.set(origin, cookies);
  }

  header(url: string): string {
    return [...(this.#byOrigin.get(new URL(url).origin) ?? [])].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(url: string, name: string): string | undefined {
    return this.#byOrigin.get(new URL(url).origin)?.get(name);
  }
}

const FORM_ACTION = /<form[^>]*action="([^"]+)"[^>]*method="post"/i;
const PROMPT = /name="prompt" value="(\w+)"/;

/** Signs in as `login` (any password) and returns the dashboard's `ods_session` cookie value. */
export async function signInOverHttp(base: string, login: string): Promise<string> {
  const jar = new CookieJar();
  let url = `${base}/dashboard/login`;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const headers = new Headers(init.headers);
    const cookie = jar.header(url);
    if (cookie) headers.set("Cookie", cookie);
    const res = await fetch(url, { ...init, headers, redirect: "manual", signal: AbortSignal.timeout(10_000) });
    jar.take(url, res);
    const location = res.headers.get("Location");
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url).toString();
      init = {};
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`sign-in: ${res.status} at ${url}: ${html.slice(0, 200)}`);
    if (url === `${base}/dashboard`) {
      const session = jar.get(base, "ods_session");
      if (!session) throw new Error("sign-in: the dashboard answered without a session cookie");
      return session;
    }
    const action = FORM_ACTION.exec(html)?.[1];
    const prompt = PROMPT.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`sign-in: no provider form at ${url}`);
    const form = new URLSearchParams({ prompt, ...(prompt === "login" ? { login, password: "any password" } : {}) });
    url = new URL(action.replaceAll("&amp;", "&"), url).toString();
    init = { method: "POST", body: form, headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(url).origin } };
  }
  throw new Error("sign-in: too many steps");
}
