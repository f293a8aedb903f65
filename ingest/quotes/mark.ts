import { optionQuotes } from "../../src/db/schema";
import { columnNames } from "../db/rows";

const { bid, ask, last } = columnNames(optionQuotes);

/**
 * A contract's mark in SQL, over the quote row `q`: the mid of a two-sided market, else the last
 * trade (the screener's premium, `premium` in src/analytics/screener-metrics.ts), else null.
 */
export const markSql = (q: string) =>
  `case when ${q}.${bid} >= 0 and ${q}.${ask} > 0 and ${q}.${ask} >= ${q}.${bid} then (${q}.${bid} + ${q}.${ask}) / 2 when ${q}.${last} > 0 then ${q}.${last} end`;
