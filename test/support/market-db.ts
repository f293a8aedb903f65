import { neon } from "@neondatabase/serverless";
import { useNeonEndpoint } from "../../src/db/client";
import { testEnv } from "./worker";

/** Raw SQL on the market database, for arranging data and checking answers against it. */
export function marketSql() {
  useNeonEndpoint(testEnv.NEON_HTTP_ENDPOINT);
  return neon(testEnv.MARKET_DATABASE_URL);
}

/** Simulates a new market load: a new snapshot version and time. */
export async function bumpMarketVersion(): Promise<void> {
  await marketSql().query("update market_state set version = version + 1, as_of = now()");
}

export const etToday = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York" }).format(new Date());

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
