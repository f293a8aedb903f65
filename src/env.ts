import { z } from "zod";
import type { AccountLimiter } from "../durable-objects/account-limiter";
import type { AuthGuard } from "../durable-objects/auth-guard";

/** Bindings and variables the Worker receives; validated once per isolate at the entry point. */
export interface Bindings {
  MARKET_DATABASE_URL: string;
  CONTROL_DATABASE_URL: string;
  /**
   * Local development only: where the Neon SQL-over-HTTP protocol is served, as a template with
   * `{host}` and `{port}` taken from the database URL. Unset in production (Neon's endpoint).
   */
  NEON_HTTP_ENDPOINT?: string;
  /** Comma-separated shared secrets an edge proxy sends in `X-Origin-Auth`; unset disables the check. */
  ORIGIN_AUTH_SECRETS?: string;
  /** Bearer token of the internal admin API; unset disables it. */
  ADMIN_TOKEN?: string;
  /** HMAC key of pagination cursors (32+ characters). */
  CURSOR_SECRET: string;
  /** Equity quote vendor: `finnhub`, or unset/`stored` to serve the stored quote only. */
  QUOTE_PROVIDER?: string;
  /** Base URL of the quote vendor's API (default: the vendor's public URL). */
  QUOTE_PROVIDER_URL?: string;
  /** The vendor's API token (secret); sent in a header, never in a URL. */
  QUOTE_PROVIDER_TOKEN?: string;
  /** Per-attempt timeout of vendor calls in ms (default 1500). */
  QUOTE_PROVIDER_TIMEOUT_MS?: string;
  /** Benchmarks only: exposes an empty route that bypasses the app, as the latency floor. */
  BENCH_FLOOR?: string;
  ACCOUNT_LIMITER: DurableObjectNamespace<AccountLimiter>;
  AUTH_GUARD: DurableObjectNamespace<AuthGuard>;
  /** SHA-256(key) → {accountId, keyId}; the mapping never changes once a key exists. */
  KEY_CACHE: KVNamespace;
  /** Market-data caches (expiration schedules), keyed by market snapshot version. */
  MARKET_CACHE: KVNamespace;
  /** Coarse per-IP limit on the public routes. */
  PUBLIC_RATE_LIMITER: RateLimit;
}

const postgresUrl = z
  .string()
  .min(1)
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgres:// URL");

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v));

const configSchema = z.object({
  MARKET_DATABASE_URL: postgresUrl,
  CONTROL_DATABASE_URL: postgresUrl,
  NEON_HTTP_ENDPOINT: optionalText.refine((v) => v === undefined || /^https?:\/\//.test(v), "must be an http(s) URL template"),
  ORIGIN_AUTH_SECRETS: optionalText.transform((v) =>
    v === undefined
      ? []
      : v
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
  ),
  ADMIN_TOKEN: optionalText.refine((v) => v === undefined || v.length >= 16, "must be at least 16 characters"),
  CURSOR_SECRET: z.string().min(32, "must be at least 32 characters"),
  QUOTE_PROVIDER: optionalText.pipe(z.enum(["finnhub", "stored"]).optional()),
  QUOTE_PROVIDER_URL: optionalText.refine((v) => v === undefined || /^https?:\/\//.test(v), "must be an http(s) URL"),
  QUOTE_PROVIDER_TOKEN: optionalText,
  QUOTE_PROVIDER_TIMEOUT_MS: optionalText.pipe(z.string().regex(/^\d+$/).transform(Number).pipe(z.int().min(50).max(10_000)).optional()),
});

export type Config = z.infer<typeof configSchema>;

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
