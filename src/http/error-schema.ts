import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "./errors";

const codes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The error envelope, as described in the API description. */
export const ErrorEnvelopeSchema = z.object({
  error: z.enum(codes).describe("Machine-readable code."),
  message: z.string().describe("Human-readable text."),
  status: z.int().describe("HTTP status."),
  timestamp: z.iso.datetime().describe("ISO 8601."),
  request_id: z.uuid().describe("Equals the X-Request-ID header."),
  required_plan: z.string().optional().describe("Only on 403 plan_upgrade_required."),
});
