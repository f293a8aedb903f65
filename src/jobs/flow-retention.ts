import { workerDatabase } from "../db/worker-database";
import { todayInNewYork } from "../domain/calendar";
import { retentionStart } from "../domain/flow-window";
import type { Bindings } from "../env";
import { pruneFlowPrints } from "../market/flow-retention";

export interface RetentionRun {
  /** The first day whose sessions are kept: the run's ET date − 7 days. */
  keptFrom: string;
  deleted: number;
}

/**
 * The scheduled retention job: prints of sessions before the earliest `from` that `/v1/flow` and
 * `/v1/flow/net` accept (today − 7 days, today the run's ET date) go; every session such a `from`
 * can reach is kept.
 */
export async function runFlowRetention(env: Bindings, at: Date): Promise<RetentionRun> {
  const keptFrom = retentionStart(todayInNewYork(at));
  const deleted = await pruneFlowPrints(workerDatabase(env, "market"), keptFrom);
  console.log(JSON.stringify({ level: "info", job: "flow-retention", keptFrom, deleted }));
  return { keptFrom, deleted };
}
