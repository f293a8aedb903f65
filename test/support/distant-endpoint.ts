/** SQL requests for `database` that the local endpoint on `port` has served: round trips, counted where they arrive. */
export async function endpointTrips(port: number, database: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/stats?database=${database}`);
  return ((await res.json()) as { requests: number }).requests;
}

/** The distance of the second test SQL endpoint (TEST_DISTANT_SQL_PORT, same database), ms: as far as Neon's region from an edge. */
export const DISTANT_RTT_MS = 40;
