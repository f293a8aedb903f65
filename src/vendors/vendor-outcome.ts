/**
 * A vendor call's result: its value, or why it failed, described without URLs, tokens or response
 * bodies (`denied` when the key itself was refused: no other call will be answered either).
 */
export type VendorOutcome<T> = { ok: true; value: T } | { ok: false; reason: string; denied: boolean };
