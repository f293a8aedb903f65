import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12: the API description's and the MCP tools' one conversion. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    reused: "inline",
  }) as JsonSchema;
  return rest;
}

/** An error response of the description: the envelope, its `error` the enum of exactly `codes`. */
export function errorResponse(description: string, codes: readonly string[], status: number): JsonSchema {
  return {
    description,
    content: {
      "application/json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/Error" },
            { type: "object", properties: { error: { enum: [...codes].sort() }, status: { const: status } } },
          ],
        },
      },
    },
  };
}
