import type { DbnRecord } from "../../ingest/dbn";
import { liveRecords, type LiveOptions } from "../../ingest/sources/opra/live/live-client";
import { schemaOf } from "../../ingest/sources/opra/live/protocol";
import { receiveTime } from "../../ingest/sources/opra/feed-files";
import { LocalGateway, type LocalGatewayOptions } from "../../devkit/gateway/local-gateway";

/**
 * The local gateway over a test's records, on a clock the test moves (`clock.now`), naming each
 * instrument in its symbol mappings by its definition's raw symbol (or by `rawSymbol` when given).
 */
export function gatewayOver(
  apiKey: string,
  records: readonly DbnRecord[],
  clock: { now: bigint },
  options: Partial<LocalGatewayOptions> = {},
): Promise<LocalGateway> {
  const rawSymbols = new Map(records.flatMap((r) => (r.kind === "definition" ? [[r.instrumentId, r.rawSymbol] as const] : [])));
  return LocalGateway.start({
    apiKey,
    records: async function* (from) {
      for (const r of records) if (from === null || receiveTime(r) >= from) yield r;
    },
    now: () => clock.now,
    rawSymbol: (id) => rawSymbols.get(id),
    ...options,
  });
}

/** Takes the next `count` data records (heartbeats and symbol mappings are passed over). */
export async function takeData(records: AsyncGenerator<DbnRecord>, count: number): Promise<DbnRecord[]> {
  const out: DbnRecord[] = [];
  while (out.length < count) {
    const { value, done } = await records.next();
    if (done) break;
    if (schemaOf(value) !== null) out.push(value);
  }
  return out;
}

/** The live client on a gateway, with what it logs; replaying from `start` (default: midnight ET of 2026-03-02). */
export function liveClient(gateway: LocalGateway, apiKey: string, signal: AbortSignal, overrides: Partial<LiveOptions> = {}) {
  const log: Record<string, unknown>[] = [];
  const records = liveRecords({
    host: "127.0.0.1",
    port: gateway.port,
    apiKey,
    start: BigInt(Date.parse("2026-03-02T05:00:00Z")) * 1_000_000n,
    log: (fields) => log.push(fields),
    signal,
    ...overrides,
  });
  return { records, log };
}
