import { z } from "zod";
import { isWellFormedAdminToken } from "./domain/admin-token";
import { HTTPS_OR_LOOPBACK, isHttpsOrLoopback, isLoopbackHost } from "./domain/loopback";

/**
 * Plain HTTP would carry connection strings (with passwords) in clear: it is allowed only to this
 * machine. The endpoint's `{host}` is each database URL's host, which must then be loopback too.
 */
function plainHttpOnlyToLoopback(config: {
  NEON_HTTP_ENDPOINT?: string;
  MARKET_DATABASE_URL: string;
  CONTROL_DATABASE_URL: string;
}): boolean {
  const endpoint = config.NEON_HTTP_ENDPOINT;
  if (endpoint === undefined || endpoint.startsWith("https://")) return true;
  const host = /^http:\/\/(\[[^\]]*\]|[^/:]+)/.exec(endpoint)?.[1] ?? "";
  const hosts =
    host === "{host}" ? [config.MARKET_DATABASE_URL, config.CONTROL_DATABASE_URL].map((u) => URL.parse(u)?.hostname ?? "") : [host];
  return hosts.every(isLoopbackHost);
}

/** The Worker reads its databases through the local SQL-over-HTTP endpoint (development, tests, replay). */
function talksToLocalEndpoint(config: Parameters<typeof plainHttpOnlyToLoopback>[0]): boolean {
  return config.NEON_HTTP_ENDPOINT?.startsWith("http://") === true && plainHttpOnlyToLoopback(config);
}

/** Shared secrets (origin secrets, cursor keys) are long enough that guessing is hopeless. */
const MIN_SECRET_LENGTH = 32;

const postgresUrl = z
  .string()
  .min(1)
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgres:// URL");

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v));

const splitSecrets = (v: string | undefined) =>
  (v ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
const longEnough = [
  (list: string[]) => list.every((s) => s.length >= MIN_SECRET_LENGTH),
  `every secret must be at least ${MIN_SECRET_LENGTH} characters`,
] as const;

/** A comma-separated list of secrets (several during a rotation), each long enough. */
const secretList = optionalText.transform(splitSecrets).refine(...longEnough);

/** A secret list the Worker cannot run without. */
const requiredSecrets = z
  .string()
  .transform(splitSecrets)
  .refine(...longEnough)
  .refine((list) => list.length > 0, "must hold at least one secret");

const configSchema = z
  .object({
    MARKET_DATABASE_URL: postgresUrl,
    CONTROL_DATABASE_URL: postgresUrl,
    /**
     * Local development only: where the Neon SQL-over-HTTP protocol is served, as a template with
     * `{host}` and `{port}` taken from the database URL. Unset in production (Neon's endpoint).
     */
    NEON_HTTP_ENDPOINT: optionalText.refine((v) => v === undefined || /^https?:\/\//.test(v), "must be an http(s) URL template"),
    /** Comma-separated shared secrets an edge proxy sends in `X-Origin-Auth`; unset disables the check. */
    ORIGIN_AUTH_SECRETS: secretList,
    /** Bearer token of the internal admin API (`ods_admin_…`, from `npm run admin -- token`); unset disables it. */
    ADMIN_TOKEN: optionalText.refine(
      (v) => v === undefined || isWellFormedAdminToken(v),
      "must be a generated admin token (ods_admin_…: `npm run admin -- token`)",
    ),
    /** When set, the admin API answers only on this hostname (a route behind Cloudflare Access or an IP allowlist); 404 elsewhere. */
    ADMIN_HOSTNAME: optionalText.pipe(
      z
        .string()
        .regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i, "must be a hostname")
        .transform((v) => v.toLowerCase())
        .optional(),
    ),
    /** Behind the edge proxy (origin authentication on): the header carrying the client's address (default `X-Client-IP`). */
    CLIENT_IP_HEADER: optionalText.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9-]{1,64}$/, "must be a header name")
        .default("X-Client-IP"),
    ),
    /** HMAC keys of pagination cursors, comma-separated (32+ characters each): the first signs, all verify (rotation). */
    CURSOR_SECRET: requiredSecrets,
    /** HMAC keys of dashboard session tokens, comma-separated (32+ characters each): the first signs, all verify (rotation). */
    SESSION_SECRET: requiredSecrets,
    /** Equity quote vendor: `finnhub`, or unset/`stored` to serve the stored quote only. */
    QUOTE_PROVIDER: optionalText.pipe(z.enum(["finnhub", "stored"]).optional()),
    /** Base URL of the quote vendor's API (default: the vendor's public URL); plain http only on loopback (the token travels with it). */
    QUOTE_PROVIDER_URL: optionalText.refine((v) => v === undefined || isHttpsOrLoopback(v), HTTPS_OR_LOOPBACK),
    /** The vendor's API token (secret); sent in a header, never in a URL. */
    QUOTE_PROVIDER_TOKEN: optionalText,
    /** Longest a database round trip may take, ms (default 20000, at most 25000: below the 30 s in-flight lease). */
    QUERY_TIMEOUT_MS: optionalText.pipe(z.string().regex(/^\d+$/).transform(Number).pipe(z.int().min(100).max(25_000)).default(20_000)),
    /** Time budget of the screener's capped count, ms (default 250); past it the count is -1 and the results still come. */
    SCREENER_COUNT_BUDGET_MS: optionalText.pipe(z.string().regex(/^\d+$/).transform(Number).pipe(z.int().min(1).max(5_000)).default(250)),
    /** Per-attempt timeout of vendor calls in ms (default 1500). */
    QUOTE_PROVIDER_TIMEOUT_MS: optionalText.pipe(z.string().regex(/^\d+$/).transform(Number).pipe(z.int().min(50).max(10_000)).optional()),
    /** The dashboard's OpenID Connect issuer (discovery document at `/.well-known/openid-configuration`); unset → no sign-in. */
    OIDC_ISSUER: optionalText.refine((v) => v === undefined || isHttpsOrLoopback(v), HTTPS_OR_LOOPBACK),
    OIDC_CLIENT_ID: optionalText,
    /** Secret of the OpenID client (`client_secret_basic`). */
    OIDC_CLIENT_SECRET: optionalText,
    /**
     * Local replay only: an ISO timestamp the service takes as "now" (DTE, default windows, today),
     * so a past quote table can be queried as of its session. Refused unless the Worker talks to the
     * local SQL endpoint (`NEON_HTTP_ENDPOINT` on a loopback address).
     */
    MARKET_CLOCK: optionalText.pipe(
      z.iso
        .datetime({ offset: true })
        .transform((v) => new Date(v))
        .optional(),
    ),
    /** Stripe secret API key; unset → billing is not configured (the admin CLI sets subscriptions). */
    STRIPE_SECRET_KEY: optionalText,
    /** Signing secret of the `POST /webhooks/stripe` endpoint (`whsec_…`). */
    STRIPE_WEBHOOK_SECRET: optionalText,
    /** The Stripe price id of the Basic plan, used by Checkout. */
    STRIPE_PRICE_BASIC: optionalText,
    /** Tests and local development only: where the Stripe API is (a local server replaying recorded responses). */
    STRIPE_API_URL: optionalText.refine((v) => v === undefined || isHttpsOrLoopback(v), HTTPS_OR_LOOPBACK),
  })
  .refine(plainHttpOnlyToLoopback, { path: ["NEON_HTTP_ENDPOINT"], message: "plain http is allowed only on loopback addresses" })
  .refine((c) => c.MARKET_CLOCK === undefined || talksToLocalEndpoint(c), {
    path: ["MARKET_CLOCK"],
    message: "a pinned market clock is for local replay: it needs the local SQL endpoint",
  })
  .refine(
    (c) =>
      [c.OIDC_ISSUER, c.OIDC_CLIENT_ID, c.OIDC_CLIENT_SECRET].every((v) => v === undefined) ||
      (c.OIDC_ISSUER && c.OIDC_CLIENT_ID && c.OIDC_CLIENT_SECRET),
    {
      path: ["OIDC_ISSUER"],
      message: "OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set together",
    },
  );

export type Config = z.infer<typeof configSchema>;

/**
 * Variables and secrets the Worker receives (set outside wrangler.toml: `wrangler secret put`,
 * `npm run dev`, the test config), as text: the schema's input, documented there.
 */
export type Variables = z.input<typeof configSchema> & {
  /** Benchmarks only: exposes an empty route that bypasses the app, as the latency floor (read before the app, not validated). */
  BENCH_FLOOR?: string;
};

/**
 * Everything the Worker receives: the bindings declared in wrangler.toml (`Env`, generated by
 * `wrangler types` into worker-configuration.d.ts, which CI checks is current) and the variables.
 */
export type Bindings = Env & Variables;

const parsed = new WeakMap<object, Config>();

/** Parses the environment once per bindings object; throws with the offending variable names. */
export function configFrom(env: Bindings): Config {
  const cached = parsed.get(env);
  if (cached) return cached;
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const names = result.error.issues.map((i) => i.path.join(".")).join(", ");
    throw new Error(`invalid Worker configuration: ${names}`);
  }
  parsed.set(env, result.data);
  return result.data;
}
