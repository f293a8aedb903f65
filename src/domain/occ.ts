/** OCC / OSI option symbols: root (1-6), YYMMDD, C|P, strike × 1000 as 8 digits. */

export interface OccContract {
  root: string;
  /** YYYY-MM-DD. */
  expiration: string;
  side: "call" | "put";
  strike: number;
}

const OCC = /^([A-Z0-9.]{1,6}) {0,5}(\d{2})(\d{2})(\d{2})([CP])(\d{8})$/;

/**
 * Parses the space-padded 21-character form and the compact form; null when the text is not a
 * valid symbol (bad shape, impossible date, zero strike, or padding that does not fill 6).
 */
export function parseOcc(text: string): OccContract | null {
  const m = OCC.exec(text);
  if (!m) return null;
  const [, root, yy, mm, dd, cp, strikeDigits] = m as unknown as [string, string, string, string, string, string, string];
  const padding = text.length - root.length - 15;
  if (padding !== 0 && root.length + padding !== 6) return null;
  const expiration = `20${yy}-${mm}-${dd}`;
  const date = new Date(`${expiration}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== expiration) return null;
  const strike = Number(strikeDigits) / 1000;
  if (!(strike > 0)) return null;
  return { root, expiration, side: cp === "C" ? "call" : "put", strike };
}

/** The canonical (compact, unpadded) symbol, e.g. `SPXW220207P04350000`. */
export function formatOcc({ root, expiration, side, strike }: OccContract): string {
  const yymmdd = expiration.slice(2, 4) + expiration.slice(5, 7) + expiration.slice(8, 10);
  const thousandths = Math.round(strike * 1000);
  return `${root}${yymmdd}${side === "call" ? "C" : "P"}${String(thousandths).padStart(8, "0")}`;
}

/** The OSI form, root padded to six characters (`SPXW  220207P04350000`): OPRA's raw symbols. */
export function formatOsi(contract: OccContract): string {
  return contract.root.padEnd(6, " ") + formatOcc(contract).slice(contract.root.length);
}
