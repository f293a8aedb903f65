/** A decimal IV on the wire: percent, 4 decimals; the spec's 0 when missing. */
export function ivPercent(iv: number | null): number {
  return iv === null ? 0 : Math.round(iv * 1e6) / 1e4;
}
