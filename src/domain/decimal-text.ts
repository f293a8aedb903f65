/** A plain decimal number as text: no hex, exponents or NaN. */
export const DECIMAL_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;
