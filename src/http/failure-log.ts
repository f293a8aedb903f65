/** Logs an unhandled failure by request id and where it happened: never headers, keys, arguments or query values. */
export function logFailure(requestId: string, where: string, err: unknown): void {
  const name = err instanceof Error ? err.name : typeof err;
  // Query parameters can carry key hashes or customer input: drop the driver's params dump.
  const message = (err instanceof Error ? err.message : String(err)).split("\nparams:")[0];
  console.error(JSON.stringify({ level: "error", requestId, path: where, error: name, message }));
}
