import erfc from "@stdlib/math-base-special-erfc";
import erfcx from "@stdlib/math-base-special-erfcx";
import erf from "@stdlib/math-base-special-erf";

export { erf, erfc, erfcx };

const INV_SQRT_2PI = 0.3989422804014327;

/** Standard normal density. */
export function normPdf(z: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
}

/** Standard normal CDF via erfc, so the lower tail keeps full relative precision. */
export function normCdf(z: number): number {
  return 0.5 * erfc(-z * Math.SQRT1_2);
}
