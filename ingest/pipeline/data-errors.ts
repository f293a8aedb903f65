/**
 * Whether a write failed on its data rather than on the database, so that writing the same events
 * again fails the same way: the server refused a value (SQLSTATE class 22, data exception: a
 * number beyond its column's range, a text holding U+0000…) or a constraint (class 23: two
 * contracts on one chain key…), or the binary COPY encoder refused a value before sending it (a
 * `RangeError`: 2^31 for an int4; its `TypeError`s name COPY). Anything else — the database away or
 * shutting down, a deadlock, a serialization failure, a cancelled statement — may succeed later.
 */
export function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code === "string" && /^2[23][0-9A-Z]{3}$/.test(code)) return true;
  if (error instanceof RangeError) return true;
  return error instanceof TypeError && error.message.startsWith("COPY");
}
