import type { TypedQuery } from "./database";

/** The session the stored market is of (`market_state.session_date`), or undefined before any load. */
export async function marketSession(query: TypedQuery): Promise<string | undefined> {
  const { rows } = await query(`select session_date::text as d from market_state where id = 1`);
  return rows[0]?.d as string | undefined;
}
