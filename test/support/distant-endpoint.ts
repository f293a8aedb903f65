/** The distance of the second test SQL endpoint (TEST_DISTANT_SQL_PORT, same database), ms: as far as Neon's region from an edge. */
export const DISTANT_RTT_MS = 40;
