// Databento's live (raw) API, as its published clients speak it (databento-rs src/live/protocol.rs):
// newline-terminated `key=value|…` text lines for the handshake, then a DBN stream.
//
//   gateway: lsg_version=…            client: auth=<sha256(cram|key) hex>-<bucket id>|dataset=…|
//   gateway: cram=<challenge>                 encoding=dbn|compression=none|ts_out=0|…
//   gateway: success=1|session_id=…   client: schema=…|stype_in=…|symbols=…|start=<ns>|is_last=1
//      (or success=0|error=…)         client: start_session
//   gateway: DBN metadata, records, heartbeats (system records) when idle
import { createHash } from "node:crypto";
import { RTYPE, type DbnRecord } from "../dbn";

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

/** The live schema a record belongs to, or null for gateway records (system, error, mappings). */
export function schemaOf(record: DbnRecord): LiveSchema | null {
  switch (record.rtype) {
    case RTYPE.INSTRUMENT_DEF:
      return "definition";
    case RTYPE.STATISTICS:
      return "statistics";
    case RTYPE.CBBO_1M:
      return "cbbo-1m";
    case RTYPE.TCBBO:
      return "tcbbo";
    default:
      return null;
  }
}
