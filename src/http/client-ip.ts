import type { Context } from "hono";
import type { AppEnv } from "../app-env";

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function ipv6Groups(text: string): number[] | null {
  if (!/^[0-9a-f:.]+$/i.test(text) || text.split("::").length > 2) return null;
  let address = text;
  // An embedded IPv4 tail (::ffff:192.0.2.1) becomes two groups.
  const v4 = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(address);
  if (v4) {
    const o = (v4[1] as string).split(".").map(Number);
    if (o.some((x) => x > 255)) return null;
    address = `${address.slice(0, -(v4[1] as string).length)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, tail] = address.split("::") as [string, string | undefined];
  const part = (s: string) => (s === "" ? [] : s.split(":"));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const missing = 8 - left.length - right.length;
  if ((tail === undefined && missing !== 0) || (tail !== undefined && missing < 1)) return null;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...right];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

/**
 * The key under which a client is limited and locked out: an IPv4 address as is, an IPv6 address
 * by its /64 (one subscriber's allocation: rotating within it changes nothing), an IPv4-mapped
 * IPv6 address as its IPv4 address, anything unparseable as "unknown".
 */
export function clientKey(address: string | undefined): string {
  const text = (address ?? "").trim();
  const v4 = IPV4.exec(text);
  if (v4) return v4.slice(1).some((o) => Number(o) > 255) ? "unknown" : v4.slice(1).map(Number).join(".");
  const groups = ipv6Groups(text);
  if (!groups) return "unknown";
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/**
 * Stripe's webhook deliveries come to the Worker directly, not through our edge proxy: their
 * signature authenticates them (src/billing/webhook.ts), so origin authentication does not apply.
 */
export function isSignedWebhook<E extends AppEnv>(c: Context<E>): boolean {
  return c.req.method === "POST" && c.req.path === "/webhooks/stripe";
}

/** Whether the request came through our edge proxy: origin authentication configured (and passed by the time this runs). */
export function viaEdgeProxy<E extends AppEnv>(c: Context<E>): boolean {
  return c.get("config").ORIGIN_AUTH_SECRETS.length > 0 && !isSignedWebhook(c);
}

/**
 * The caller's client key. Behind our edge proxy `CF-Connecting-IP` is the proxy's own address,
 * so the client's comes from the header the proxy sets (`CLIENT_IP_HEADER`, required valid by
 * origin authentication); without origin authentication that header is never trusted.
 */
export function clientIp<E extends AppEnv>(c: Context<E>): string {
  return clientKey(c.req.header(viaEdgeProxy(c) ? c.get("config").CLIENT_IP_HEADER : "CF-Connecting-IP"));
}
