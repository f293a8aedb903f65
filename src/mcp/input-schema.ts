import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchema } from "../openapi/json-schema";
import type { McpTool } from "./tools";

type ObjectSchema = { properties?: Record<string, { description?: string }>; required?: string[]; additionalProperties?: unknown };

/**
 * A tool's input schema: its route's path and query parameters (or its JSON body) as one object,
 * by the conversion the API description uses. Aliases are left out: the route accepts them, an
 * assistant needs one name per thing. A page size the tool bounds states the tool's default and maximum.
 */
export function toolInputSchema(tool: McpTool): Tool["inputSchema"] {
  const route = tool.route;
  const parts = (route.body ? [route.body] : [route.params, route.query]).filter((p) => p !== undefined);
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const part of parts) {
    const schema = jsonSchema(part, "input") as ObjectSchema;
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (!property.description?.startsWith("Alias of")) properties[name] = property;
    }
    required.push(...(schema.required ?? []).filter((name) => name in properties));
  }
  if (tool.size && properties[tool.size.param]) {
    const { param, max } = tool.size;
    properties[param] = { ...properties[param], default: tool.size.default, maximum: max, description: `At most ${max} a call.` };
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}
