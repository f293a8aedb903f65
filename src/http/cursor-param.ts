import type { z } from "zod";
import { decodeCursor } from "../pagination/cursor";
import { ApiError } from "./errors";

/**
 * The position a `cursor` query parameter carries, checked against the shape the route signs: a
 * cursor that does not verify, was issued for another query or carries anything else is 400.
 */
export async function cursorPosition<T>(secrets: readonly string[], cursor: string, digest: string, shape: z.ZodType<T>): Promise<T> {
  const parsed = shape.safeParse(await decodeCursor(secrets, cursor, digest));
  if (!parsed.success) {
    throw new ApiError(
      "invalid_parameter",
      "Invalid query parameter 'cursor': not a cursor issued for this query; start again without it.",
    );
  }
  return parsed.data;
}
