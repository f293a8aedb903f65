import { z } from "zod";
import { isCalendarDate } from "../domain/calendar";
import { DECIMAL_TEXT } from "../domain/decimal-text";
import { aliased, orderedRange } from "./input-checks";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Blank values mean "not given"; anything that is not a plain decimal number fails (no hex, exponents or NaN). */
function numericText(value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (value.trim() === "") return undefined;
  return DECIMAL_TEXT.test(value) ? value : "not-a-number";
}

/** What the API description says of a parameter: its text and, when it has one, its default. */
export type ParamDoc = { description: string; default?: number } & Record<string, unknown>;

/** An optional integer query parameter within bounds. */
export function intParam(min: number, max: number, doc: ParamDoc) {
  return z.preprocess(numericText, z.coerce.number().int().min(min).max(max).optional().meta(doc));
}

/** An optional decimal query parameter, bounded where bounds are given. */
export function numberParam(doc: ParamDoc, bounds: { min?: number; max?: number } = {}) {
  let schema = z.coerce.number();
  if (bounds.min !== undefined) schema = schema.min(bounds.min);
  if (bounds.max !== undefined) schema = schema.max(bounds.max);
  return z.preprocess(numericText, schema.optional().meta(doc));
}

/** An optional calendar date `YYYY-MM-DD` that exists, in years 0001-9999 (`isCalendarDate`). */
export const dateParam = z
  .string()
  .regex(DATE, "must be YYYY-MM-DD")
  .refine(isCalendarDate, "is not a calendar date of the years 0001-9999")
  .optional();

/** A page size: any positive integer (plans clamp it, so a large value is not an error). */
export function limitParam(doc: ParamDoc) {
  return z.preprocess(numericText, z.coerce.number().int().min(1).optional().meta(doc));
}

/** The four days-to-expiration parameters: `minDte`/`dteMin` and `maxDte`/`dteMax`, 0 to `maxBound`. */
export function dteParams(options: { maxBound: number; maxDoc: string; maxDefault?: number }) {
  const dte = (description: string, defaultValue?: number) => intParam(0, options.maxBound, { description, default: defaultValue });
  return {
    minDte: dte("Minimum days to expiration (default 0). Alias: dteMin.", 0),
    dteMin: dte("Alias of minDte."),
    maxDte: dte(`${options.maxDoc} Alias: dteMax.`, options.maxDefault),
    dteMax: dte("Alias of maxDte."),
  };
}

export interface DteQuery {
  minDte?: number;
  dteMin?: number;
  maxDte?: number;
  dteMax?: number;
}

/**
 * The DTE window as sent: `min` defaults to 0; `max` is undefined when not given (or 0 where 0
 * means unset). An explicit `max` below `min` is 400 `invalid_range`; defaults are the caller's.
 */
export function dteWindow(q: DteQuery, options: { zeroMaxIsUnset: boolean }): { min: number; minGiven: boolean; max: number | undefined } {
  const minGiven = aliased(q, "minDte", "dteMin");
  const maxGiven = aliased(q, "maxDte", "dteMax");
  const min = minGiven ?? 0;
  const max = options.zeroMaxIsUnset && maxGiven === 0 ? undefined : maxGiven;
  orderedRange(["minDte", min], ["maxDte", max], "below");
  return { min, minGiven: minGiven !== undefined, max };
}

/** An optional boolean query parameter: `true` or `false` (blank means not given). */
export function booleanParam(doc: { description: string; default?: boolean }) {
  return z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z
      .enum(["true", "false"])
      .transform((v) => v === "true")
      .optional()
      .meta(doc),
  );
}
