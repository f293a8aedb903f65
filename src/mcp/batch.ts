import { CancelledNotificationSchema, isJSONRPCNotification, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../http/errors";

/** The most messages one `/mcp` request may carry as a JSON-RPC batch; each counts as a request. */
export const MAX_BATCH_MESSAGES = 20;

/** An `/mcp` body ready for the transport, and the messages it was sent with: the requests it counts for. */
export interface McpBody {
  messages: unknown;
  count: number;
}

/** The request a `notifications/cancelled` names, if the message is one. */
function cancelledId(message: unknown): unknown {
  if (!isJSONRPCNotification(message)) return undefined;
  const parsed = CancelledNotificationSchema.safeParse(message);
  return parsed.success ? parsed.data.params.requestId : undefined;
}

/**
 * An `/mcp` body checked before the transport dispatches it. The transport answers a batch once
 * every request in it is answered, so a batch that cannot all be answered would hang with its tool
 * calls' in-flight slots: a request id twice is refused, and a request cancelled by a
 * `notifications/cancelled` in the same batch is dropped, never started (MCP: a cancelled request
 * gets no answer). A batch above `MAX_BATCH_MESSAGES` is refused. The rest of JSON-RPC is the
 * transport's to judge.
 */
export function mcpBody(text: string): McpBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_body", "The request body could not be parsed as JSON.");
  }
  if (!Array.isArray(body)) return { messages: body, count: 1 };
  if (body.length > MAX_BATCH_MESSAGES) {
    throw new ApiError("invalid_body", `A batch holds at most ${MAX_BATCH_MESSAGES} messages; this one holds ${body.length}.`);
  }
  const ids = new Set<unknown>();
  const cancelled = new Set<unknown>();
  for (const message of body) {
    if (isJSONRPCRequest(message)) {
      if (ids.has(message.id)) {
        throw new ApiError(
          "invalid_body",
          `Request ids in a batch must be unique; ${JSON.stringify(message.id).slice(0, 40)} appears twice.`,
        );
      }
      ids.add(message.id);
    } else {
      const id = cancelledId(message);
      if (id !== undefined) cancelled.add(id);
    }
  }
  return { messages: body.filter((m) => !(isJSONRPCRequest(m) && cancelled.has(m.id))), count: body.length };
}
