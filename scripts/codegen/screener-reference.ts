import { SCREENER_FIELDS } from "../../src/screener/fields";
import { fieldTableMarkdown, operationTableMarkdown } from "../../src/screener/reference";

export const BEGIN = "<!-- screener-reference:begin (npm run docs:screener) -->";
export const END = "<!-- screener-reference:end -->";

/** The generated part of docs/screener.md. */
export function screenerReference(): string {
  const accepted = SCREENER_FIELDS.reduce((n, f) => n + 1 + f.aliases.length, 0);
  return [
    BEGIN,
    "",
    `### Fields (${SCREENER_FIELDS.length} canonical, ${accepted} accepted names)`,
    "",
    fieldTableMarkdown(),
    "",
    "### Operations",
    "",
    operationTableMarkdown(),
    "",
    END,
  ].join("\n");
}
