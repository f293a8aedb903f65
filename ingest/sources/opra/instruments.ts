import { settlementOf } from "../../../src/domain/market-clock";
import { formatOcc, parseOcc } from "../../../src/domain/occ";
import type { DefinitionRecord, SymbolMappingRecord } from "../../dbn";
import type { OptionContract } from "../../events";

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
 * morning, and intraday as contracts are listed); symbol mappings — a live session's, a file's
 * metadata, a JSON record's mapped `symbol` — fill in ids whose definition has not been seen. OPRA
 * raw symbols are OSI symbols (`SPXW  220207P04350000`).
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

  /** Applies a symbol mapping (raw symbol out); false when the symbol is not an option's. */
  map(record: SymbolMappingRecord): boolean {
    return this.name(record.instrumentId, record.stypeOutSymbol) !== undefined;
  }

  /**
   * Names an instrument by its raw symbol: the contract it stands for from now on, or undefined
   * when the symbol is not an option's (a parent symbol such as `SPY.OPT` names no contract). An id
   * already known as that contract keeps what its definition said (the underlying); an id named
   * anew (ids are reassigned from day to day) takes the new contract.
   */
  name(instrumentId: number, rawSymbol: string): OptionContract | undefined {
    const contract = this.contractOf(rawSymbol);
    if (!contract) return undefined;
    const known = this.byId.get(instrumentId);
    if (known?.optionSymbol === contract.optionSymbol) return known;
    this.byId.set(instrumentId, contract);
    return contract;
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
