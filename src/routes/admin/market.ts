import { defineRoute } from "../../http/route";
import { SnapshotRefreshSchema } from "./contracts";
import { refreshVersions } from "../../edge-cache/market-versions";
import { services } from "../../services";

/** After a load: the edge that receives this serves the new versions on its next request, every edge within 15 s. */
export const refreshSnapshotRoute = defineRoute({
  method: "post",
  path: "/admin/market/snapshot",
  operationId: "adminRefreshSnapshot",
  summary: "Publish the loaded market snapshot to the edge",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  response: {
    description: "The snapshot now current at the edge.",
    schema: SnapshotRefreshSchema,
  },
  handler: (c) => refreshVersions(services(c).edge),
});
