import { z } from "zod";

/** Bindings and variables the Worker receives; validated once per isolate at the entry point. */
export interface Bindings {
  MARKET_DATABASE_URL: string;
  CONTROL_DATABASE_URL: string;
  /**
   * Local development only: where the Neon SQL-over-HTTP protocol is served, as a template with
   * `{host}` and `{port}` taken from the database URL. Unset in production (Neon's endpoint).
   */
  NEON_HTTP_ENDPOINT?: string;
  /** Benchmarks only: exposes an empty route that bypasses the app, as the latency floor. */
  BENCH_FLOOR?: string;
}

const postgresUrl = z
  .string()
  .min(1)
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgres:// URL");

const configSchema = z.object({
  MARKET_DATABASE_URL: postgresUrl,
  CONTROL_DATABASE_URL: postgresUrl,
  NEON_HTTP_ENDPOINT: z
    .string()
    .regex(/^https?:\/\//)
    .optional()
    .or(z.literal("").transform(() => undefined)),
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
