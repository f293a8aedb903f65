import { timestamp } from "drizzle-orm/pg-core";

/** `timestamptz`, read as Postgres text (normalised to ISO 8601 at the API boundary). */
export const tsz = (name: string) => timestamp(name, { withTimezone: true, mode: "string" });
