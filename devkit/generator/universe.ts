import type { Random } from "./random";

export type AssetType = "stock" | "etf" | "index";

export interface UnderlyingProfile {
  symbol: string;
  name: string;
  assetType: AssetType;
  sector: string | null;
  industry: string | null;
  /** Spot on the as-of date. */
  price: number;
  /** 30-day ATM implied volatility, decimal. */
  atmVol: number;
  dividendYield: number;
  marketCap: number | null;
  /** Relative liquidity: scales strikes listed, open interest, volume and prints. */
  activity: number;
  /** Option roots and their settlement; an index lists an AM monthly root and a PM root. */
  roots: { root: string; settlement: "am" | "pm"; monthlyOnly: boolean }[];
}

type Seed = [
  symbol: string,
  name: string,
  type: AssetType,
  sector: string | null,
  industry: string | null,
  price: number,
  vol: number,
  divYield: number,
  capBn: number | null,
  activity: number,
];

/** Demo names: the liquid US option underlyings users will look for first. */
const DEMO: Seed[] = [
  ["SPY", "SPDR S&P 500 ETF Trust", "etf", null, null, 592, 0.14, 0.012, null, 10],
  ["QQQ", "Invesco QQQ Trust", "etf", null, null, 508, 0.18, 0.006, null, 8],
  ["IWM", "iShares Russell 2000 ETF", "etf", null, null, 232, 0.22, 0.011, null, 6],
  ["DIA", "SPDR Dow Jones Industrial Average ETF", "etf", null, null, 436, 0.13, 0.016, null, 2],
  ["XLF", "Financial Select Sector SPDR Fund", "etf", null, null, 48, 0.17, 0.015, null, 2],
  ["XLE", "Energy Select Sector SPDR Fund", "etf", null, null, 92, 0.24, 0.032, null, 2],
  ["GLD", "SPDR Gold Shares", "etf", null, null, 245, 0.16, 0, null, 3],
  ["TLT", "iShares 20+ Year Treasury Bond ETF", "etf", null, null, 91, 0.15, 0.04, null, 3],
  ["AAPL", "Apple Inc.", "stock", "Technology", "Consumer Electronics", 228, 0.24, 0.0044, 3450, 8],
  ["MSFT", "Microsoft Corporation", "stock", "Technology", "Software - Infrastructure", 418, 0.22, 0.0075, 3110, 6],
  ["NVDA", "NVIDIA Corporation", "stock", "Technology", "Semiconductors", 141, 0.48, 0.0003, 3460, 10],
  ["TSLA", "Tesla, Inc.", "stock", "Consumer Cyclical", "Auto Manufacturers", 338, 0.62, 0, 1090, 10],
  ["AMZN", "Amazon.com, Inc.", "stock", "Consumer Cyclical", "Internet Retail", 202, 0.3, 0, 2120, 7],
  ["META", "Meta Platforms, Inc.", "stock", "Communication Services", "Internet Content & Information", 565, 0.33, 0.0035, 1430, 6],
  ["GOOGL", "Alphabet Inc.", "stock", "Communication Services", "Internet Content & Information", 176, 0.29, 0.0045, 2150, 6],
  ["AMD", "Advanced Micro Devices, Inc.", "stock", "Technology", "Semiconductors", 138, 0.47, 0, 224, 7],
  ["NFLX", "Netflix, Inc.", "stock", "Communication Services", "Entertainment", 897, 0.34, 0, 384, 4],
  ["JPM", "JPMorgan Chase & Co.", "stock", "Financial Services", "Banks - Diversified", 244, 0.21, 0.021, 690, 4],
  ["BAC", "Bank of America Corporation", "stock", "Financial Services", "Banks - Diversified", 46, 0.24, 0.023, 355, 4],
  ["XOM", "Exxon Mobil Corporation", "stock", "Energy", "Oil & Gas Integrated", 120, 0.22, 0.033, 527, 3],
  ["CVX", "Chevron Corporation", "stock", "Energy", "Oil & Gas Integrated", 161, 0.23, 0.041, 289, 3],
  ["KO", "The Coca-Cola Company", "stock", "Consumer Defensive", "Beverages - Non-Alcoholic", 64, 0.15, 0.031, 275, 3],
  ["PEP", "PepsiCo, Inc.", "stock", "Consumer Defensive", "Beverages - Non-Alcoholic", 158, 0.17, 0.035, 217, 2],
  ["WMT", "Walmart Inc.", "stock", "Consumer Defensive", "Discount Stores", 88, 0.2, 0.0095, 707, 3],
  ["JNJ", "Johnson & Johnson", "stock", "Healthcare", "Drug Manufacturers - General", 153, 0.16, 0.032, 368, 3],
  ["PFE", "Pfizer Inc.", "stock", "Healthcare", "Drug Manufacturers - General", 25.6, 0.25, 0.066, 145, 4],
  ["UNH", "UnitedHealth Group Incorporated", "stock", "Healthcare", "Healthcare Plans", 598, 0.27, 0.014, 550, 3],
  ["DIS", "The Walt Disney Company", "stock", "Communication Services", "Entertainment", 113, 0.26, 0.0088, 205, 3],
  ["INTC", "Intel Corporation", "stock", "Technology", "Semiconductors", 24.5, 0.52, 0, 106, 5],
  ["BA", "The Boeing Company", "stock", "Industrials", "Aerospace & Defense", 152, 0.36, 0, 113, 4],
  ["CAT", "Caterpillar Inc.", "stock", "Industrials", "Farm & Heavy Construction Machinery", 392, 0.27, 0.014, 190, 2],
  ["COST", "Costco Wholesale Corporation", "stock", "Consumer Defensive", "Discount Stores", 935, 0.19, 0.005, 414, 2],
  ["HD", "The Home Depot, Inc.", "stock", "Consumer Cyclical", "Home Improvement Retail", 412, 0.21, 0.022, 409, 2],
  ["PLTR", "Palantir Technologies Inc.", "stock", "Technology", "Software - Infrastructure", 61.2, 0.68, 0, 139, 7],
  ["COIN", "Coinbase Global, Inc.", "stock", "Financial Services", "Financial Data & Stock Exchanges", 295, 0.78, 0, 74, 5],
  ["MU", "Micron Technology, Inc.", "stock", "Technology", "Semiconductors", 99, 0.5, 0.0046, 110, 4],
  ["T", "AT&T Inc.", "stock", "Communication Services", "Telecom Services", 22.9, 0.2, 0.048, 164, 3],
  ["F", "Ford Motor Company", "stock", "Consumer Cyclical", "Auto Manufacturers", 11.1, 0.34, 0.054, 44, 4],
  ["BRK.B", "Berkshire Hathaway Inc.", "stock", "Financial Services", "Insurance - Diversified", 478, 0.14, 0, 1030, 2],
];

const INDEXES: Record<string, Seed> = {
  SPX: ["SPX", "S&P 500 Index", "index", null, null, 5948, 0.14, 0.013, null, 10],
  NDX: ["NDX", "Nasdaq-100 Index", "index", null, null, 20750, 0.19, 0.007, null, 6],
};

/** PM-settled root of an index: SPXW for SPX, NDXP for NDX. */
const PM_ROOTS: Record<string, string> = { SPX: "SPXW", NDX: "NDXP" };

/** A plausible ticker for a synthetic underlying, unique by index. */
function syntheticSymbol(i: number): string {
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let n = i;
  let out = "";
  do {
    out = letters[n % 26] + out;
    n = Math.floor(n / 26);
  } while (n > 0);
  return `Z${out}`;
}

const SECTORS: [string, string[]][] = [
  ["Technology", ["Software - Application", "Semiconductors", "IT Services"]],
  ["Healthcare", ["Biotechnology", "Medical Devices", "Drug Manufacturers - Specialty"]],
  ["Financial Services", ["Banks - Regional", "Asset Management", "Insurance - Property & Casualty"]],
  ["Consumer Cyclical", ["Specialty Retail", "Restaurants", "Auto Parts"]],
  ["Industrials", ["Specialty Industrial Machinery", "Trucking", "Aerospace & Defense"]],
  ["Energy", ["Oil & Gas E&P", "Oil & Gas Midstream"]],
  ["Real Estate", ["REIT - Residential", "REIT - Industrial"]],
  ["Utilities", ["Utilities - Regulated Electric"]],
  ["Consumer Defensive", ["Packaged Foods", "Household & Personal Products"]],
  ["Basic Materials", ["Specialty Chemicals", "Gold"]],
  ["Communication Services", ["Telecom Services", "Advertising Agencies"]],
];

function fromSeed([symbol, name, assetType, sector, industry, price, atmVol, dividendYield, capBn, activity]: Seed): UnderlyingProfile {
  const roots =
    assetType === "index"
      ? [
          { root: symbol, settlement: "am" as const, monthlyOnly: true },
          { root: PM_ROOTS[symbol] ?? `${symbol}W`, settlement: "pm" as const, monthlyOnly: false },
        ]
      : [{ root: symbol.replace(".", ""), settlement: "pm" as const, monthlyOnly: false }];
  return {
    symbol,
    name,
    assetType,
    sector,
    industry,
    price,
    atmVol,
    dividendYield,
    marketCap: capBn === null ? null : capBn * 1e9,
    activity,
    roots,
  };
}

/**
 * The underlyings of a market of the given size: the named demo list plus one index (SPX unless
 * told otherwise) first, then synthetic small and mid caps with random fundamentals.
 */
export function buildUniverse(count: number, rng: Random, index: keyof typeof INDEXES = "SPX"): UnderlyingProfile[] {
  const named = [...DEMO.slice(0, Math.max(0, count - 1)), INDEXES[index] as Seed].map(fromSeed);
  const out = named.slice(0, count);
  for (let i = 0; out.length < count; i++) {
    const [sector, industries] = rng.pick(SECTORS);
    const price = Math.round(rng.logNormal(45, 0.9) * 100) / 100;
    const symbol = syntheticSymbol(i);
    out.push({
      symbol,
      name: `${symbol} ${rng.pick(["Holdings", "Corp.", "Inc.", "Group", "Technologies", "Therapeutics", "Industries"])}`,
      assetType: rng.chance(0.08) ? "etf" : "stock",
      sector,
      industry: rng.pick(industries),
      price: Math.max(price, 2.5),
      atmVol: Math.min(Math.max(rng.logNormal(0.38, 0.45), 0.12), 2.6),
      dividendYield: rng.chance(0.45) ? rng.uniform(0.004, 0.06) : 0,
      marketCap: rng.logNormal(4e9, 1.4),
      activity: Math.max(0.2, rng.logNormal(0.6, 0.7)),
      roots: [{ root: symbol, settlement: "pm", monthlyOnly: false }],
    });
  }
  return out;
}

/**
 * Dividend payers outside the coverage universe (over-the-counter ADRs, a non-optionable fund):
 * listed by the dividend calendar only with `includeAll=true` or when asked for by symbol.
 */
export const OUT_OF_COVERAGE: UnderlyingProfile[] = [
  ["NSRGY", "Nestle S.A. (ADR, OTC)", 98, 0.031],
  ["RHHBY", "Roche Holding AG (ADR, OTC)", 36, 0.034],
  ["BTAFF", "British American Tobacco p.l.c. (OTC)", 41, 0.078],
].map(([symbol, name, price, dividendYield]) => ({
  symbol: symbol as string,
  name: name as string,
  assetType: "stock" as const,
  sector: "Consumer Defensive",
  industry: null,
  price: price as number,
  atmVol: 0.2,
  dividendYield: dividendYield as number,
  marketCap: null,
  activity: 0,
  roots: [],
}));
