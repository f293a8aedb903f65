/** `x` rounded to `places` decimals for the wire; null stays null. */
export function round(x: number | null, places: number): number | null {
  return x === null ? null : Math.round(x * 10 ** places) / 10 ** places;
}
