import { workerDatabase } from "../db/worker-database";
import { todayInNewYork } from "../domain/calendar";
import { retentionStart } from "../domain/flow-window";
import type { Bindings } from "../env";
import { pruneFlowPrints } from "../market/flow-retention";

export interface RetentionRun {
  /** The first session kept. */
  keptFrom: string;
  deleted: number;
}

/**
 * The scheduled retention job: prints of sessions older than the retained ones (the same 7
 * sessions `/v1/flow` serves, counted from the run's ET date) are deleted in short batches.
 */
export async function runFlowRetention(env: Bindings, at: Date): Promise<RetentionRun> {
  const keptFrom = retentionStart(todayInNewYork(at));
  const deleted = await pruneFlowPrints(workerDatabase(env, "market"), keptFrom);
  console.log(JSON.stringify({ level: "info", job: "flow-retention", keptFrom, deleted }));
  return { keptFrom, deleted };
}
