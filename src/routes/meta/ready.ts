import { z } from "zod";
import { rawSql } from "../../db/client";
import { defineRoute } from "../../http/route";
import { SERVICE_VERSION } from "../../version";

const PROBE_TIMEOUT_MS = 2_000;
/** A public route must not turn every call into two database round trips: results are reused this long per isolate. */
const RESULT_TTL_MS = 2_000;

const CheckSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().describe("Round-trip time of the probe query."),
  error: z.string().optional().describe("Short reason when the probe failed; no internal detail."),
});

export const ReadinessSchema = z.object({
  status: z.enum(["ready", "not_ready"]),
  version: z.string(),
  checks: z.object({ market: CheckSchema, control: CheckSchema }),
});
export type Readiness = z.infer<typeof ReadinessSchema>;

type Check = z.infer<typeof CheckSchema>;

/** Runs `select 1` with a hard deadline; the reason is a category, never driver text. */
async function probe(url: string): Promise<Check> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), PROBE_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([rawSql(url, PROBE_TIMEOUT_MS).query("select 1 as ok"), deadline]);
    if (outcome === "timeout") return { ok: false, latencyMs: Date.now() - started, error: "timeout" };
    return { ok: true, latencyMs: Date.now() - started };
  } catch {
    return { ok: false, latencyMs: Date.now() - started, error: "unreachable" };
  } finally {
    clearTimeout(timer);
  }
}

let last: { key: string; at: number; checks: Readiness["checks"] } | undefined;

/** Both probes, or the result of the last ones for the same databases if they are recent enough. */
async function checks(marketUrl: string, controlUrl: string): Promise<Readiness["checks"]> {
  const key = `${marketUrl}\n${controlUrl}`;
  if (last && last.key === key && Date.now() - last.at < RESULT_TTL_MS) return last.checks;
  const [market, control] = await Promise.all([probe(marketUrl), probe(controlUrl)]);
  last = { key, at: Date.now(), checks: { market, control } };
  return last.checks;
}

export const readyRoute = defineRoute({
  method: "get",
  path: "/ready",
  operationId: "getReadiness",
  summary: "Readiness",
  description: `Probes the market and control-plane databases (each bounded to ${PROBE_TIMEOUT_MS} ms; results reused for ${RESULT_TTL_MS / 1000} s). 200 when both answer, 503 with the same body shape when either fails.`,
  tags: ["Meta"],
  access: "public",
  caching: "per-request",
  response: { description: "Ready.", schema: ReadinessSchema },
  otherResponses: { 503: { description: "Not ready; same body shape.", schema: ReadinessSchema } },
  handler: async (c) => {
    const config = c.get("config");
    const { market, control } = await checks(config.MARKET_DATABASE_URL, config.CONTROL_DATABASE_URL);
    const ready = market.ok && control.ok;
    c.header("Cache-Control", "no-store");
    if (!ready) c.status(503);
    return { status: ready ? ("ready" as const) : ("not_ready" as const), version: SERVICE_VERSION, checks: { market, control } };
  },
});
