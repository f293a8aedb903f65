import { settlementOf } from "../../../src/domain/market-clock";
import { parse } from "csv-parse/sync";
import { sessionCloseAt, sessionOnOrBefore } from "../../../src/domain/calendar";
import { parseOcc, formatOcc, type OccContract } from "../../../src/domain/occ";

/**
 * Cboe delayed-quote "quote table" CSV: line 1 blank, line 2 `<name>,Last: <spot>,Change: …`,
 * line 3 `"Date: <when>",Bid: …`, line 4 the header, then one row per strike with the call
 * (columns 1-10), the strike (11) and the put (12-21).
 */

/** The columns of one side, repeated for calls and puts around the strike. */
const SIDE = ["Last Sale", "Net", "Bid", "Ask", "Volume", "IV", "Delta", "Gamma", "Open Interest"];
export const HEADER = ["Expiration Date", "Calls", ...SIDE, "Strike", "Puts", ...SIDE];

export interface QuoteTableContract {
  contract: OccContract;
  optionSymbol: string;
  settlement: "am" | "pm";
  bid: number;
  ask: number;
  last: number;
  volume: number;
  openInterest: number;
  /** The vendor's IV (decimal) when it gave a positive one. */
  vendorIv: number | null;
  /** The vendor's delta, kept only for comparison. */
  vendorDelta: number;
}

export interface QuoteTable {
  underlying: string;
  name: string;
  assetType: "stock" | "etf" | "index";
  spot: number;
  /** Session the table describes and the instant its prices are taken at (its close: 16:00 ET, 13:00 on early-close days). */
  sessionDate: string;
  asOf: Date;
  contracts: QuoteTableContract[];
  rejected: { row: number; reason: string }[];
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** `Date: February 5 2022, 8:09 PM EST` / `Date: August 20, 2023 at 10:35 PM EDT` → the date it names. */
function headerDate(text: string): string | null {
  const m = /Date:\s*([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})/.exec(text);
  const month = m ? MONTHS.indexOf((m[1] as string).toLowerCase()) : -1;
  if (!m || month < 0) return null;
  return `${m[3]}-${String(month + 1).padStart(2, "0")}-${(m[2] as string).padStart(2, "0")}`;
}

const EXPIRY = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) (\d{2}) (\d{4})$/;

function expirationOf(text: string): string | null {
  const m = EXPIRY.exec(text.trim());
  const month = m ? MONTHS.findIndex((name) => name.startsWith((m[1] as string).toLowerCase())) : -1;
  return m && month >= 0 ? `${m[3]}-${String(month + 1).padStart(2, "0")}-${m[2]}` : null;
}

function number(text: string | undefined, field: string, { min = 0, max = Number.MAX_VALUE } = {}): number {
  const value = Number((text ?? "").replace(/,/g, "").trim());
  if ((text ?? "").trim() === "" || !Number.isFinite(value) || value < min || value > max)
    throw new Error(`${field} is not a number in [${min}, ${max}]: '${text ?? ""}'`);
  return value;
}

/** Parses a quote table; malformed rows are reported with their line number, never silently dropped. */
export function parseQuoteTable(text: string, options: { asOf?: string } = {}): QuoteTable {
  const lines = parse(text, { relax_column_count: true, skip_empty_lines: false, bom: true }) as string[][];
  const { name, spot, sessionDate } = parseHeader(lines, options.asOf);
  const contracts: QuoteTableContract[] = [];
  const rejected: QuoteTable["rejected"] = [];
  lines.slice(4).forEach((cells, i) => {
    if (cells.length === 1 && (cells[0] ?? "").trim() === "") return;
    try {
      contracts.push(...parseRow(cells));
    } catch (err) {
      rejected.push({ row: i + 5, reason: err instanceof Error ? err.message : String(err) });
    }
  });
  // The underlying is the shortest root (SPX for SPX/SPXW); an index's own root settles AM.
  const roots = new Set(contracts.map((c) => c.contract.root));
  const underlying = [...roots].sort((a, b) => a.length - b.length || a.localeCompare(b))[0] ?? "";
  const assetType = /\bindex\b/i.test(name) ? "index" : /\b(etf|trust|fund)\b/i.test(name) ? "etf" : "stock";
  for (const c of contracts) c.settlement = settlementOf(c.contract.root, underlying, assetType === "index");
  return { underlying, name, assetType, spot, sessionDate, asOf: sessionCloseAt(sessionDate), contracts, rejected };
}

/** Lines 2-4: the name and "Last:" spot, the "Date:" line (a holiday or weekend download holds the session before), the header. */
function parseHeader(lines: string[][], asOf: string | undefined): { name: string; spot: number; sessionDate: string } {
  const title = lines[1] ?? [];
  const header = lines[3] ?? [];
  const spotMatch = /Last:\s*([\d.,]+)/.exec(title.join(","));
  if (!spotMatch || header.join("|") !== HEADER.join("|")) {
    throw new Error("not a Cboe quote table: expected the name/Last line, the Date line and the 22-column header on lines 2-4");
  }
  const fileDate = asOf ?? headerDate((lines[2] ?? []).join(","));
  if (!fileDate) throw new Error("no date in the file's Date line; pass --as-of YYYY-MM-DD");
  return { name: (title[0] ?? "").trim(), spot: number(spotMatch[1], "Last"), sessionDate: sessionOnOrBefore(fileDate) };
}

/** One row: a call and a put of one expiration and strike, each checked against its own OCC symbol. */
function parseRow(cells: string[]): QuoteTableContract[] {
  if (cells.length !== HEADER.length) throw new Error(`expected ${HEADER.length} columns, found ${cells.length}`);
  const expiration = expirationOf(cells[0] as string);
  if (!expiration) throw new Error(`bad expiration date '${cells[0]}'`);
  const strike = number(cells[11], "Strike", { min: 0.001 });
  const side = (kind: "call" | "put", symbol: string | undefined, at: number): QuoteTableContract => {
    const contract = parseOcc((symbol ?? "").trim());
    if (!contract) throw new Error(`bad ${kind} symbol '${symbol}'`);
    if (contract.expiration !== expiration || contract.side !== kind || Math.abs(contract.strike - strike) > 1e-9) {
      throw new Error(`${kind} symbol ${symbol} does not match the row's expiration, strike or side`);
    }
    const iv = number(cells[at + 5], `${kind} IV`, { max: 1000 });
    return {
      contract,
      optionSymbol: formatOcc(contract),
      bid: number(cells[at + 2], `${kind} Bid`),
      ask: number(cells[at + 3], `${kind} Ask`),
      last: number(cells[at], `${kind} Last Sale`),
      volume: number(cells[at + 4], `${kind} Volume`),
      openInterest: number(cells[at + 8], `${kind} Open Interest`),
      vendorIv: iv > 0 ? iv : null,
      vendorDelta: number(cells[at + 6], `${kind} Delta`, { min: -1, max: 1 }),
      settlement: "pm",
    };
  };
  return [side("call", cells[1], 2), side("put", cells[12], 13)];
}
