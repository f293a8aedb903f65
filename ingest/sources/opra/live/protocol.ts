// Databento's live (raw) API, as its published clients speak it (databento-rs src/live/protocol.rs):
// newline-terminated `key=value|…` text lines for the handshake, then a DBN stream.
//
//   gateway: lsg_version=…            client: auth=<sha256(cram|key) hex>-<bucket id>|dataset=…|
//   gateway: cram=<challenge>                 encoding=dbn|compression=none|ts_out=0|…
//   gateway: success=1|session_id=…   client: schema=…|stype_in=…|symbols=…|snapshot=0|is_last=1|start=<ns>
//      (or success=0|error=…)         client: start_session
//   gateway: DBN metadata, then records, symbol mappings, notices (system records: subscription
//   acknowledgements, one "replay completed" per replayed schema, heartbeats when idle) and
//   errors (error records: those in FATAL_ERROR_CODES end the session for good)
import { createHash } from "node:crypto";
import { ERROR_CODE, RTYPE, type DbnRecord } from "../../../dbn";
import { TRADE_EXECUTED_BEFORE_NS } from "../from-dbn";

/** API keys are 32 characters; the last 5 name the key's bucket (sent in clear beside the digest). */
export const API_KEY_LENGTH = 32;
const BUCKET_ID_LENGTH = 5;

export const OPRA_DATASET = "OPRA.PILLAR";
/** The feed name our positions of Databento's OPRA data are stored under, whichever transport brought them (files or live). */
export const OPRA_FEED = "databento-opra";
/** The schemas the pipeline reads, each one subscription. */
export const LIVE_SCHEMAS = ["definition", "statistics", "cbbo-1m", "tcbbo"] as const;
export type LiveSchema = (typeof LIVE_SCHEMAS)[number];

/** The gateway's default heartbeat interval; a client gives up after it plus 5 s of silence (databento-rs `heartbeat_timeout`). */
export const DEFAULT_HEARTBEAT_INTERVAL_S = 30;
export const heartbeatTimeoutMs = (intervalS: number) => (intervalS + 5) * 1000;

/**
 * Whether the gateway's intraday replay selects this schema's records by receive time; every other
 * schema's are selected by event time (Databento, "Intraday replay": `ts_event` for every schema
 * except CBBO and BBO, which use `ts_recv`).
 */
export const replaysByReceiveTime = (schema: string) => /^c?bbo-/.test(schema);

/**
 * The `start` that replays every record of `schema` received at or after `received`: filtered on
 * event time, a record received then may have been executed up to TRADE_EXECUTED_BEFORE_NS earlier
 * (one executed earlier still is dropped as implausible: `ingest/sources/opra/from-dbn.ts`).
 */
export function replayStart(schema: LiveSchema, received: bigint): bigint {
  return replaysByReceiveTime(schema) ? received : received - TRADE_EXECUTED_BEFORE_NS;
}

/**
 * Gateway error codes that end a session for good: a refused or deactivated key, a subscription
 * the gateway cannot serve, a replay older than it keeps. Reconnecting cannot help; the others
 * (connection limit, internal error, records skipped behind a slow reader) are retried.
 */
export const FATAL_ERROR_CODES: ReadonlySet<number> = new Set([
  ERROR_CODE.AUTH_FAILED,
  ERROR_CODE.API_KEY_DEACTIVATED,
  ERROR_CODE.SYMBOL_RESOLUTION_FAILED,
  ERROR_CODE.INVALID_SUBSCRIPTION,
  ERROR_CODE.REPLAY_DATA_AGED_OUT,
]);

/**
 * A subscription request for every OPRA symbol of one schema: a single request, so `is_last=1`
 * (only a non-final chunk of a symbol list split over several requests says 0; databento-rs
 * `Protocol::subscribe`).
 */
export const subscriptionRequest = (schema: LiveSchema, start: bigint | null) =>
  formatFields({
    schema,
    stype_in: "parent",
    symbols: "ALL_SYMBOLS",
    snapshot: 0,
    is_last: 1,
    ...(start === null ? {} : { start: start.toString() }),
  });

/** The CRAM reply: the key never crosses the network, only a digest of it with the gateway's challenge. */
export function cramReply(challenge: string, apiKey: string): string {
  const digest = createHash("sha256").update(`${challenge}|${apiKey}`).digest("hex");
  return `${digest}-${apiKey.slice(API_KEY_LENGTH - BUCKET_ID_LENGTH)}`;
}

/** `a=1|b=2` → {a: "1", b: "2"} (a value may hold `=`; pairs without one are ignored). */
export function parseFields(line: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const pair of line.split("|")) {
    const at = pair.indexOf("=");
    if (at > 0) fields[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return fields;
}

export const formatFields = (fields: Record<string, string | number>) =>
  `${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join("|")}\n`;

/** The record type of each live schema's records. */
export const SCHEMA_RTYPE: Readonly<Record<LiveSchema, number>> = {
  definition: RTYPE.INSTRUMENT_DEF,
  statistics: RTYPE.STATISTICS,
  "cbbo-1m": RTYPE.CBBO_1M,
  tcbbo: RTYPE.TCBBO,
};

const SCHEMA_OF_RTYPE = new Map(LIVE_SCHEMAS.map((schema) => [SCHEMA_RTYPE[schema], schema]));

/** The live schema a record belongs to, or null for gateway records (system, error, mappings). */
export function schemaOf(record: DbnRecord): LiveSchema | null {
  return SCHEMA_OF_RTYPE.get(record.rtype) ?? null;
}
