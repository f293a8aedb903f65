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
