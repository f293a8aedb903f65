import { settlementOf } from "../../src/domain/market-clock";
import { formatOcc, parseOcc } from "../../src/domain/occ";
import type { DefinitionRecord, SymbolMappingRecord } from "../dbn";
import type { OptionContract } from "../events";

/** Roots whose underlying has another symbol; every other root is its underlying's symbol. */
const ROOT_UNDERLYING: ReadonlyMap<string, string> = new Map([
  ["SPXW", "SPX"],
  ["SPXPM", "SPX"],
  ["NDXP", "NDX"],
  ["RUTW", "RUT"],
  ["VIXW", "VIX"],
]);

/**
 * The feed's instrument ids and the contracts they stand for. Definitions are the source (each
 * morning, and intraday as contracts are listed); a live session's symbol mappings fill in ids whose
 * definition has not been seen. OPRA raw symbols are OSI symbols (`SPXW  220207P04350000`).
 */
export class OpraInstruments {
  private readonly byId = new Map<number, OptionContract>();

  /** `indexes`: the underlyings that are indexes (their own root settles AM). */
  constructor(private readonly indexes: ReadonlySet<string>) {}

  get(instrumentId: number): OptionContract | undefined {
    return this.byId.get(instrumentId);
  }

  /** Applies a definition: the contract it adds or changes, or the one it deletes; null when it is not an option. */
  define(record: DefinitionRecord): { contract: OptionContract; deleted: boolean } | null {
    if (record.instrumentClass !== "C" && record.instrumentClass !== "P") return null;
    if (record.securityUpdateAction === "D") {
      const contract = this.byId.get(record.instrumentId);
      this.byId.delete(record.instrumentId);
      return contract ? { contract, deleted: true } : null;
    }
    const contract = this.contractOf(record.rawSymbol, record.underlying || undefined);
    if (!contract) return null;
    this.byId.set(record.instrumentId, contract);
    return { contract, deleted: false };
  }

  /** Applies a live session's symbol mapping (raw symbol out); false when the symbol is not an option's. */
  map(record: SymbolMappingRecord): boolean {
    if (this.byId.has(record.instrumentId)) return true;
    const contract = this.contractOf(record.stypeOutSymbol);
    if (contract) this.byId.set(record.instrumentId, contract);
    return contract !== null;
  }

  private contractOf(rawSymbol: string, underlyingSymbol?: string): OptionContract | null {
    const contract = parseOcc(rawSymbol.trimEnd());
    if (!contract) return null;
    const underlying = underlyingSymbol ?? ROOT_UNDERLYING.get(contract.root) ?? contract.root;
    const isIndex = this.indexes.has(underlying);
    return {
      optionSymbol: formatOcc(contract),
      contract,
      underlying,
      isIndex,
      settlement: settlementOf(contract.root, underlying, isIndex),
    };
  }
}
