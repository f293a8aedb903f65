/** Round trips the local SQL endpoint behind `connectionString` has served for `database`, counted where they arrive. */
export async function endpointTripsFor(connectionString: string, database: string): Promise<number> {
  const { host } = new URL(connectionString);
  const res = await fetch(`http://${host}/stats?database=${database}`);
  return ((await res.json()) as { requests: number }).requests;
}

/**
 * The same database under a name of its own: the local endpoint counts round trips per database
 * name, so what is asked through `url` is counted apart from every other test's requests.
 */
export function countedAlias(connectionString: string, prefix: string): { url: string; trips: () => Promise<number> } {
  const name = `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  return { url: url.toString(), trips: () => endpointTripsFor(connectionString, name) };
}
