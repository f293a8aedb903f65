import { SCREENER_FIELDS } from "./fields";
import { COMPARISONS, SPECIAL_OPERATIONS, UNSUPPORTED_OPERATIONS } from "./operations";

/**
 * The field and operation tables as Markdown, written from the tables the compiler reads: the API
 * description embeds them and docs/screener.md holds them (`npm run docs:screener`).
 */

const cell = (text: string) => text.replace(/\|/g, "\\|");

export function fieldTableMarkdown(): string {
  const rows = SCREENER_FIELDS.map((f) => {
    const type = f.values ? `set: ${f.values.join(", ")}` : f.type;
    const aliases = f.aliases.map((a) => `\`${a}\``).join(", ");
    return `| \`${f.name}\` | ${aliases} | ${type} | ${f.unit ?? ""} | ${cell(f.description)} |`;
  });
  return ["| field | aliases | type | unit | meaning |", "| --- | --- | --- | --- | --- |", ...rows].join("\n");
}

export function operationTableMarkdown(): string {
  const spellings = [...COMPARISONS].map(([spelling, meaning]) => `\`${spelling}\` (${meaning})`);
  return [
    "| operation | meaning |",
    "| --- | --- |",
    `| comparisons | ${spellings.join(", ")}: numbers, integers, dates and timestamps; \`eq\` also on text (case-insensitive), sets and booleans. A row without a value never passes a threshold. |`,
    ...SPECIAL_OPERATIONS.map((o) => `| \`${o.operation}\` | ${cell(o.meaning)} |`),
    `| ${UNSUPPORTED_OPERATIONS.map((o) => `\`${o}\``).join(", ")} | Refused with 400 \`invalid_body\` naming the operation. |`,
  ].join("\n");
}
