/** A last price from an upstream vendor. */
export interface ProviderQuote {
  price: number;
  /** UTC instant of the price; null when the vendor gives none. */
  asOf: string | null;
}

/** An upstream equity quote source. `quote` resolves null when the vendor does not know the symbol and throws `QuoteProviderError` when it fails. */
export interface QuoteProvider {
  readonly name: string;
  quote(symbol: string): Promise<ProviderQuote | null>;
}

/** A vendor failure, described without URLs, tokens or response bodies. */
export class QuoteProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuoteProviderError";
  }
}
