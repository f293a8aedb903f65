import { marketState } from "../../src/db/schema";
import type { TypedQuery } from "./database";
import { columnNames, selectRows } from "./rows";

const S = columnNames(marketState);

/** The session the stored market is of (`market_state.session_date`), or undefined before any load. */
export async function marketSession(query: TypedQuery): Promise<string | undefined> {
  const [state] = await selectRows(query, marketState, ["sessionDate"], `where ${S.id} = 1`);
  return state?.sessionDate;
}
