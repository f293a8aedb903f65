import { readFileSync, writeFileSync } from "node:fs";
import { BEGIN, END, screenerReference } from "./screener-reference";

/** Rewrites the generated part of docs/screener.md from the field and operation tables in code. */
const path = "docs/screener.md";
const text = readFileSync(path, "utf8");
const start = text.indexOf(BEGIN);
const end = text.indexOf(END);
if (start < 0 || end < start) throw new Error(`${path} lacks the ${BEGIN} … ${END} markers`);
writeFileSync(path, text.slice(0, start) + screenerReference() + text.slice(end + END.length));
console.log(`${path}: field and operation tables rewritten`);
