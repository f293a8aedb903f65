import { z } from "zod";
import { ApiError } from "../../http/errors";
import { intParam } from "../../http/query-params";
import { withinQueryBudget } from "../../http/query-timeout";
import { requestNow } from "../../http/request-clock";
import { defineRoute } from "../../http/route";
import { pageBudgetMs, runScreen, SCREENER_COUNT_CAP } from "../../market/screener";
import { compileScreen, ScreenRuleError } from "../../screener/compile";
import { fieldTableMarkdown, operationTableMarkdown } from "../../screener/reference";
import { ScreenerRowSchema, toRow } from "../../screener/row";
import { MAX_PAGE, ScreenBody, screenRules, type ScreenBodyInput } from "./screen-body";
import { services } from "../../services";

const DEFAULT_PAGE_SIZE = 10;
/** Page size cap and result cap, whatever the plan (spec). */
const MAX_PAGE_SIZE = 100;

export const ScreenerResponseSchema = z.object({
  count: z
    .int()
    .describe(`Matches, capped at ${SCREENER_COUNT_CAP}; -1 when counting ran out of its time budget (results are still returned).`),
  countCapped: z.boolean().describe(`True when count reached ${SCREENER_COUNT_CAP} (a lower bound; use hasMore).`),
  hasMore: z.boolean().describe("More pages exist."),
  results: z.array(ScreenerRowSchema),
});
export type ScreenerResponse = z.infer<typeof ScreenerResponseSchema>;

/** The body's value when above 0, else the query's (spec). */
const bodyFirst = (body: number | undefined, query: number | undefined) => (body !== undefined && body > 0 ? body : query);

function pagination(body: ScreenBodyInput, query: { page?: number; pageSize?: number }): { page: number; pageSize: number } {
  const bodyPageSize = bodyFirst(body.pageSize, body.perPage);
  const page = bodyFirst(body.page, query.page) ?? 1;
  const pageSize = Math.min(bodyFirst(bodyPageSize, query.pageSize) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page, pageSize };
}

/** The body's rules as the screener applies them; a rule it cannot apply is the client's 400. */
function compiled(input: ScreenBodyInput, now: Date) {
  try {
    return compileScreen(screenRules(input), now);
  } catch (err) {
    if (err instanceof ScreenRuleError) throw new ApiError("invalid_body", err.message);
    throw err;
  }
}

export const screenRoute = defineRoute({
  method: "post",
  path: "/v1/contracts/screen",
  operationId: "screenContracts",
  summary: "Contract screener",
  description:
    "Option contracts matching every filter rule, in the order of the sort rules (default: option key; with one underlying " +
    `pinned, expiration then strike), the option key breaking ties. Pages of at most ${MAX_PAGE_SIZE}, whatever the plan. ` +
    "A page past its time budget gives 503 query_timeout with Retry-After. " +
    "A filter rule is `{field, operation, value}`; the fields and operations:\n\n" +
    fieldTableMarkdown() +
    "\n\n" +
    operationTableMarkdown(),
  tags: ["Screener"],
  access: "entitled",
  caching: "per-request",
  query: z.object({
    page: intParam(1, MAX_PAGE, { description: `Page, 1-${MAX_PAGE} (default 1); the body's page wins when above 0.` }),
    pageSize: intParam(1, Number.MAX_SAFE_INTEGER, {
      description: `Rows per page, 1-${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); above ${MAX_PAGE_SIZE} silently capped; the body's pageSize wins when above 0.`,
      default: DEFAULT_PAGE_SIZE,
    }),
  }),
  body: ScreenBody,
  response: { description: "A page of matching contracts.", schema: ScreenerResponseSchema },
  errors: ["invalid_body", "invalid_range", "query_timeout"],
  handler: async (c, { query, body }) => {
    const input = body ?? {};
    const { page, pageSize } = pagination(input, query);
    const screen = compiled(input, requestNow(c));
    const { QUERY_TIMEOUT_MS, SCREENER_COUNT_BUDGET_MS } = c.get("config");
    const { rows, count } = await withinQueryBudget(
      runScreen(services(c).market, screen, pageSize + 1, (page - 1) * pageSize, {
        countMs: SCREENER_COUNT_BUDGET_MS,
        pageMs: pageBudgetMs(QUERY_TIMEOUT_MS, SCREENER_COUNT_BUDGET_MS),
      }),
    );
    return {
      count: count ?? -1,
      countCapped: count !== null && count >= SCREENER_COUNT_CAP,
      hasMore: rows.length > pageSize,
      results: rows.slice(0, pageSize).map(toRow),
    };
  },
});
