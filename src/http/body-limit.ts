import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./errors";

/** The largest request body a route (or `/mcp`) reads. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Refuses a larger body from `Content-Length`, or as soon as more arrives while it streams in: never read whole. */
export const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError("invalid_body", `The request body is larger than ${MAX_BODY_BYTES / 1024} KB.`);
  },
});
