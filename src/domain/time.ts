/** Milliseconds in a calendar day (UTC arithmetic on dates; New York time is handled by the calendar). */
export const DAY_MS = 86_400_000;
