import { z } from "zod";
import { defineRoute } from "../../http/route";
import { SERVICE_VERSION } from "../../version";

export const HealthSchema = z.object({
  status: z.literal("ok"),
  version: z.string().describe("Service version."),
});
export type Health = z.infer<typeof HealthSchema>;

export const healthRoute = defineRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  summary: "Liveness",
  description: "200 with the service version while the process is alive. Touches no dependency.",
  tags: ["Meta"],
  access: "public",
  caching: "per-request",
  response: { description: "Alive.", schema: HealthSchema },
  handler: () => ({ status: "ok" as const, version: SERVICE_VERSION }),
});
