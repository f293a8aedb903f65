import { newApp } from "./app";
import type { Bindings } from "./env";
import { runFlowRetention } from "./jobs/flow-retention";
import { routes } from "./routes";

export { AccountLimiter } from "../durable-objects/account-limiter";
export { AuthGuard } from "../durable-objects/auth-guard";
export { StreamHub } from "./streams/stream-hub";
export { StreamShard } from "./streams/stream-shard";
export { StatusShard } from "./streams/status-shard";
export { MarketShard } from "./streams/market-shard";

const app = newApp(routes);

/**
 * `npm run bench` sets BENCH_FLOOR to measure the runtime alone: this path skips the whole app,
 * so it never exists where origin authentication is configured (a deployment behind the edge).
 */
const FLOOR_PATH = "/__bench/floor";
const floorEnabled = (env: Bindings) => env.BENCH_FLOOR === "true" && !env.ORIGIN_AUTH_SECRETS?.trim();

export default {
  fetch(request, env, ctx) {
    if (floorEnabled(env) && new URL(request.url).pathname === FLOOR_PATH) return new Response(null, { status: 204 });
    return app.fetch(request, env, ctx);
  },
  /** The cron trigger of wrangler.toml: flow-print retention. */
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runFlowRetention(env, new Date(controller.scheduledTime)));
  },
} satisfies ExportedHandler<Bindings>;
