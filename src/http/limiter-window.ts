/** The Workers rate-limiting bindings count per 60-second period (wrangler.toml): a refused client may retry once it has passed. */
export const LIMITER_RETRY_AFTER_SECONDS = "60";
