import { expect } from "vitest";
import type { z } from "zod";
import type { RouteSpec } from "../../src/http/route";

type AnyRoute<S extends z.ZodType> = RouteSpec<z.ZodType, z.ZodType, z.ZodType, S>;

/**
 * Reads a success response and checks it against the route's own response schema: every field
 * present with its type and nothing the contract does not have. Returns the body, typed.
 */
export async function contractBody<S extends z.ZodType>(route: AnyRoute<S>, res: Response, status = 200): Promise<z.output<S>> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status} from ${route.operationId}, got ${res.status}: ${text.slice(0, 300)}`);
  const schema = route.response.schema;
  if (!schema) throw new Error(`${route.operationId} declares no response schema`);
  const body: unknown = JSON.parse(text);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`${route.operationId} broke its contract: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`);
  // zod drops keys its schema does not know: any difference is a field outside the contract.
  expect(parsed.data, `${route.operationId} answered fields outside its contract`).toEqual(body);
  return parsed.data;
}
