// The metadata header, per databento/dbn rust/dbn/src/decode/dbn/fsm.rs (`decode_prelude`,
// `decode_metadata_impl`) and rust/dbn/src/metadata.rs.
import { readCString } from "./c-string";
import { SCHEMAS, STYPES, type SchemaName, type STypeName } from "./enums";
import { DbnDecodeError } from "./errors";
import { UNDEF_TIMESTAMP } from "./fixed-point";

/** DBN versions this decoder reads. v1 (22-byte symbols, other record layouts) is refused. */
export const SUPPORTED_DBN_VERSIONS = [2, 3] as const;
/** "DBN" + version byte + u32 length of the rest of the metadata. */
export const METADATA_PRELUDE_LEN = 8;
/**
 * The longest metadata (after the prelude) this decoder buffers: 256 MiB. The prelude's u32 allows
 * 4 GiB, and the decoder holds the whole header before decoding it, so a corrupt length would have it
 * buffer the stream behind it. The largest header a real request gets is a day of the whole OPRA
 * universe by parent symbology: about 1.5 M contracts, each a mapping interval of 8 + 71 bytes,
 * ≈ 120 MB; a live session's header has no mappings at all (they come as records).
 */
export const MAX_METADATA_LEN = 256 * 1024 * 1024;
/** The width of the symbol strings of each DBN version (compat.rs `SYMBOL_CSTR_LEN_V1/V2/V3`); the vendor's encoder writes no other. */
export const SYMBOL_CSTR_LEN_BY_VERSION: Readonly<Record<number, number>> = { 1: 22, 2: 71, 3: 71 };
/** Fixed part after the prelude, up to and including the reserved bytes (lib.rs `METADATA_FIXED_LEN`). */
const METADATA_FIXED_LEN = 100;
const DATASET_CSTR_LEN = 16;
const RESERVED_LEN = 53;
const NULL_SCHEMA = 0xffff;
const NULL_STYPE = 0xff;

export interface MappingInterval {
  /** Dates as YYYYMMDD integers, as DBN stores them. */
  startDate: number;
  endDate: number;
  symbol: string;
}

export interface SymbolMapping {
  rawSymbol: string;
  intervals: MappingInterval[];
}

export interface Metadata {
  version: number;
  dataset: string;
  /** Null for live data mixing schemas. */
  schema: SchemaName | null;
  start: bigint;
  end: bigint | null;
  limit: bigint | null;
  stypeIn: STypeName | null;
  stypeOut: STypeName;
  /** Records carry an extra trailing u64 `ts_out`. */
  tsOut: boolean;
  symbolCstrLen: number;
  symbols: string[];
  partial: string[];
  notFound: string[];
  mappings: SymbolMapping[];
}

/**
 * Reads the prelude if `bytes` holds it: the total header length (prelude included), or null
 * when more bytes are needed. Throws on a wrong magic or an unsupported version.
 */
export function metadataLength(bytes: Uint8Array): number | null {
  if (bytes.length < METADATA_PRELUDE_LEN) {
    if (!isPrefixOfMagic(bytes)) throw new DbnDecodeError("not a DBN stream: missing 'DBN' magic", 0);
    return null;
  }
  if (!isPrefixOfMagic(bytes.subarray(0, 3))) {
    const zstd = bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;
    throw new DbnDecodeError(`not a DBN stream: missing 'DBN' magic${zstd ? " (it is zstd-compressed: use readDbnZst)" : ""}`, 0);
  }
  const version = bytes[3]!;
  if (!(SUPPORTED_DBN_VERSIONS as readonly number[]).includes(version)) {
    throw new DbnDecodeError(`unsupported DBN version ${version}: this decoder reads versions ${SUPPORTED_DBN_VERSIONS.join(" and ")}`, 3);
  }
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  if (length < METADATA_FIXED_LEN) throw new DbnDecodeError(`metadata length ${length} shorter than its fixed part`, 4);
  if (length > MAX_METADATA_LEN) throw new DbnDecodeError(`metadata length ${length} is over the ${MAX_METADATA_LEN}-byte limit`, 4);
  return METADATA_PRELUDE_LEN + length;
}

function isPrefixOfMagic(bytes: Uint8Array): boolean {
  return [0x44, 0x42, 0x4e].slice(0, bytes.length).every((b, i) => bytes[i] === b);
}

/** Decodes a whole metadata header (prelude included; `bytes.length` = `metadataLength`). */
export function decodeMetadata(bytes: Uint8Array): Metadata {
  const total = metadataLength(bytes);
  if (total === null || bytes.length < total) {
    throw new DbnDecodeError("truncated metadata header", bytes.length);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, total);
  const version = bytes[3]!;
  let pos = METADATA_PRELUDE_LEN;
  const need = (n: number, what: string) => {
    if (pos + n > total) throw new DbnDecodeError(`metadata header ends inside ${what}`, pos);
  };
  const dataset = readCString(bytes, pos, DATASET_CSTR_LEN);
  pos += DATASET_CSTR_LEN;
  const rawSchema = view.getUint16(pos, true);
  const schema = rawSchema === NULL_SCHEMA ? null : SCHEMAS[rawSchema];
  if (schema === undefined) throw new DbnDecodeError(`unknown schema ${rawSchema}`, pos);
  pos += 2;
  const start = view.getBigUint64(pos, true);
  const rawEnd = view.getBigUint64(pos + 8, true);
  const rawLimit = view.getBigUint64(pos + 16, true);
  pos += 24;
  const rawStypeIn = bytes[pos]!;
  const stypeIn = rawStypeIn === NULL_STYPE ? null : STYPES[rawStypeIn];
  if (stypeIn === undefined) throw new DbnDecodeError(`unknown stype_in ${rawStypeIn}`, pos);
  const stypeOut = STYPES[bytes[pos + 1]!];
  if (stypeOut === undefined) throw new DbnDecodeError(`unknown stype_out ${bytes[pos + 1]}`, pos + 1);
  const tsOut = bytes[pos + 2] !== 0;
  pos += 3;
  const symbolCstrLen = view.getUint16(pos, true);
  // The vendor's decoder takes any width; 0 would let a count of 2^32 − 1 symbols pass every bounds check.
  if (symbolCstrLen !== SYMBOL_CSTR_LEN_BY_VERSION[version]) {
    throw new DbnDecodeError(
      `symbol_cstr_len ${symbolCstrLen}: DBN v${version} symbols are ${SYMBOL_CSTR_LEN_BY_VERSION[version]} bytes`,
      pos,
    );
  }
  pos += 2 + RESERVED_LEN;
  need(4, "schema_definition_length");
  const schemaDefinitionLength = view.getUint32(pos, true);
  if (schemaDefinitionLength !== 0) throw new DbnDecodeError("schema definitions are not supported", pos);
  pos += 4;

  const readSymbol = (what: string) => {
    need(symbolCstrLen, what);
    const symbol = readCString(bytes, pos, symbolCstrLen);
    pos += symbolCstrLen;
    return symbol;
  };
  /** A u32 count of items of at least `each` bytes, checked against the bytes left before anything is allocated or looped over. */
  const readCount = (what: string, each: number) => {
    need(4, `${what} count`);
    const count = view.getUint32(pos, true);
    pos += 4;
    if (count * each > total - pos) {
      throw new DbnDecodeError(`metadata header ends inside ${what}: ${count} of ${each} bytes each, ${total - pos} bytes left`, pos - 4);
    }
    return count;
  };
  const readSymbols = (what: string) => Array.from({ length: readCount(what, symbolCstrLen) }, () => readSymbol(what));
  const symbols = readSymbols("symbols");
  const partial = readSymbols("partial");
  const notFound = readSymbols("not_found");
  // A mapping is its raw symbol and an interval count at least; an interval two u32 dates and a symbol.
  const mappings = Array.from({ length: readCount("mappings", symbolCstrLen + 4) }, (): SymbolMapping => {
    const rawSymbol = readSymbol("mapping raw_symbol");
    const intervals = Array.from({ length: readCount("mapping intervals", 8 + symbolCstrLen) }, (): MappingInterval => {
      need(8, "mapping interval dates");
      const startDate = view.getUint32(pos, true);
      const endDate = view.getUint32(pos + 4, true);
      pos += 8;
      return { startDate, endDate, symbol: readSymbol("mapping interval symbol") };
    });
    return { rawSymbol, intervals };
  });
  return {
    version,
    dataset,
    schema,
    start,
    end: rawEnd === UNDEF_TIMESTAMP || rawEnd === 0n ? null : rawEnd,
    limit: rawLimit === 0n ? null : rawLimit,
    stypeIn,
    stypeOut,
    tsOut,
    symbolCstrLen,
    symbols,
    partial,
    notFound,
    mappings,
  };
}
