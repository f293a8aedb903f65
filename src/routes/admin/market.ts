import { z } from "zod";
import { marketDatabase } from "../../db/for-request";
import { defineRoute } from "../../http/route";
import { refreshSnapshot } from "../../market/snapshot-cache";

/** After a load: the edge that receives this serves the new snapshot on its next request, every edge within 60 s. */
export const refreshSnapshotRoute = defineRoute({
  method: "post",
  path: "/admin/market/snapshot",
  operationId: "adminRefreshSnapshot",
  summary: "Publish the loaded market snapshot to the edge",
  tags: ["Admin"],
  access: "admin",
  response: {
    description: "The snapshot now current at the edge.",
    schema: z.object({ version: z.number(), asOf: z.string().nullable() }),
  },
  handler: (c) => refreshSnapshot(c, marketDatabase(c)),
});
