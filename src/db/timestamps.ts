/** Postgres `timestamptz` text (`2026-11-20 22:31:33.701+00`) → ISO 8601 UTC (`2026-11-20T22:31:33.701Z`). */
export function isoTimestamp(value: string): string;
export function isoTimestamp(value: string | null): string | null;
export function isoTimestamp(value: string | null): string | null {
  if (value === null) return null;
  const ms = Date.parse(value.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
