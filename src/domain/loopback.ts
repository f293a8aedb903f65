/**
 * The one rule for where secrets may travel over plain HTTP: to this machine only. The Worker's
 * configuration (database endpoint, quote vendor, Stripe, OpenID issuer), the ingestor's vendor,
 * the admin client and the dashboard's cookies read it here.
 */

/** This machine's names as `URL.hostname` spells them: 127.0.0.0/8, localhost, [::1]. */
const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOST.test(hostname);
}

/**
 * A base URL that tokens, keys or connection strings may be sent to: https anywhere, plain http
 * only to a loopback address (elsewhere they would cross the network in clear). The host is the
 * parsed URL's, so `http://localhost@example.com` is example.com.
 */
export function isHttpsOrLoopback(value: string): boolean {
  const url = URL.parse(value);
  if (url === null) return false;
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/** What a setting that fails `isHttpsOrLoopback` is told. */
export const HTTPS_OR_LOOPBACK = "must be an https URL (plain http only on loopback addresses)";
