import { STREAM_WAKE_PATH } from "../../access/admin-gate";
import { defineRoute } from "../../http/route";
import { SnapshotRefreshSchema, StreamWakeSchema } from "./contracts";
import { FLOW_SHARDS } from "../../streams/shard-rule";
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

/**
 * The ingestor committed prints: every flow shard with subscribers reads the feed now instead of at
 * its next poll. One call per commit, one call per shard, whatever the number of subscribers.
 */
export const wakeStreamsRoute = defineRoute({
  method: "post",
  path: STREAM_WAKE_PATH,
  operationId: "adminWakeStreams",
  summary: "Tell the stream shards that prints were committed",
  tags: ["Admin"],
  access: "admin",
  caching: "per-request",
  response: { description: "The shards told.", schema: StreamWakeSchema },
  handler: (c) => {
    for (const shard of FLOW_SHARDS) c.executionCtx.waitUntil(c.env.STREAM_SHARD.getByName(shard).wake(shard));
    return { shards: FLOW_SHARDS.length };
  },
});
