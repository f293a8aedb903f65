import { z } from "zod";

/** Equity/index ticker: 1-10 characters, uppercase letters, digits, dot or hyphen. */
export const TICKER = /^[A-Z0-9.-]{1,10}$/;

export const tickerParam = z
  .string()
  .regex(TICKER, "must be 1-10 characters: uppercase letters, digits, '.' or '-'")
  .describe("Underlying ticker, e.g. AAPL, BRK.B, SPX.");
