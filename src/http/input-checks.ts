import { ApiError } from "./errors";

/**
 * Inputs that contradict each other, checked the same way on every route: two names for one value
 * given different values, and bounds in the wrong order.
 */

/** Where the inputs came from: the query string (`invalid_parameter`) or the JSON body (`invalid_body`). */
export type InputSource = "query" | "body";

const ALIAS_CONFLICT = {
  query: { code: "invalid_parameter", noun: "Parameters" },
  body: { code: "invalid_body", noun: "Body fields" },
} as const;

/**
 * The value of an input that has an alias: either name may be used; both with different values is
 * a client error rather than a silent choice.
 */
export function aliased<T, K extends keyof T & string, A extends keyof T & string>(
  input: T,
  name: K,
  alias: A,
  source: InputSource = "query",
): T[K] | T[A] | undefined {
  const a = input[name];
  const b = input[alias];
  // By value: a body's lists are equal when their items are.
  if (a !== undefined && b !== undefined && JSON.stringify(a) !== JSON.stringify(b)) {
    const { code, noun } = ALIAS_CONFLICT[source];
    throw new ApiError(code, `${noun} '${name}' and '${alias}' are aliases and were given different values.`);
  }
  return a ?? b;
}

/** A bound: the input's name (as the message names it) and its value, if given. */
export type Bound<T> = readonly [name: string, value: T | undefined];

const REVERSED = {
  above: (low: string, lo: unknown, high: string, hi: unknown) => `${low} (${lo}) is above ${high} (${hi}).`,
  below: (low: string, lo: unknown, high: string, hi: unknown) => `${high} (${hi}) is below ${low} (${lo}).`,
  after: (low: string, lo: unknown, high: string, hi: unknown) => `${low} (${lo}) is after ${high} (${hi}).`,
  reversed: (low: string, lo: unknown, _high: string, hi: unknown) => `The ${low} bounds are reversed (${lo} > ${hi}).`,
};

/**
 * 400 `invalid_range` when both bounds are given and the low one is above the high one; `say` is
 * how the message puts it (`strikeMin (5) is above strikeMax (4).` by default).
 */
export function orderedRange<T extends number | string>(low: Bound<T>, high: Bound<T>, say: keyof typeof REVERSED = "above"): void {
  const [lowName, lo] = low;
  const [highName, hi] = high;
  if (lo !== undefined && hi !== undefined && lo > hi) throw new ApiError("invalid_range", REVERSED[say](lowName, lo, highName, hi));
}
