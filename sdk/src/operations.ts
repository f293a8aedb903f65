import type { operationTable, operations } from "./generated/api.js";
import type { ApiResult } from "./meta.js";

/** The operationIds of the API description: one client method each. */
export type OperationId = keyof typeof operationTable & keyof operations;

/** `{}` for a part the operation does not have (`never`/`undefined` in the generated types). */
type Part<T> = [T] extends [never] ? {} : [NonNullable<T>] extends [never] ? {} : NonNullable<T>;

type PathParams<O> = O extends { parameters: { path?: infer P } } ? Part<P> : {};
type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? Part<Q> : {};
type BodyParam<O> = O extends { requestBody?: infer R }
  ? [NonNullable<R>] extends [never]
    ? {}
    : NonNullable<R> extends { content: { "application/json": infer B } }
      ? { body?: B }
      : {}
  : {};

/** A method's one argument: path and query parameters side by side (no name is both), and `body` where there is one. */
export type OperationInput<K extends OperationId> = PathParams<operations[K]> & QueryParams<operations[K]> & BodyParam<operations[K]>;

/** The body of an operation's success answer. */
export type OperationData<K extends OperationId> = operations[K] extends {
  responses: { 200: { content: { "application/json": infer D } } };
}
  ? D
  : never;

type Method<K extends OperationId> =
  {} extends OperationInput<K>
    ? (input?: OperationInput<K>) => Promise<ApiResult<OperationData<K>>>
    : (input: OperationInput<K>) => Promise<ApiResult<OperationData<K>>>;

/** One typed method per operation, named by its operationId. */
export type Operations = { [K in OperationId]: Method<K> };
