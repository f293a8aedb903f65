import type { ApiResult } from "./meta.js";
import type { OperationData, OperationId, OperationInput } from "./operations.js";

/** Every item of a list, fetched page by page as the loop asks; `pages()` yields the pages with their headers. */
export interface Paginated<Item, Page> extends AsyncIterable<Item> {
  pages(): AsyncIterable<ApiResult<Page>>;
}

type Call = <K extends OperationId>(id: K, input: OperationInput<K>) => Promise<ApiResult<OperationData<K>>>;

type Cursored = "getChain" | "getEarnings" | "getDividends";
type ItemOf<K extends OperationId> =
  OperationData<K> extends { contracts: (infer I)[] } ? I : OperationData<K> extends { results: (infer I)[] } ? I : never;

type ListMethod<K extends OperationId> =
  {} extends OperationInput<K>
    ? (input?: OperationInput<K>) => Paginated<ItemOf<K>, OperationData<K>>
    : (input: OperationInput<K>) => Paginated<ItemOf<K>, OperationData<K>>;

/** The lists: chain and calendars follow `nextCursor`, the screener turns pages while `hasMore`. */
export type PaginatedOperations = { [K in Cursored | "screenContracts"]: ListMethod<K> };

function paginated<Item, Page>(pages: () => AsyncGenerator<ApiResult<Page>>, items: (page: Page) => Item[]): Paginated<Item, Page> {
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* items(page.data);
    },
  };
}

function byCursor<K extends Cursored>(call: Call, id: K, input: OperationInput<K>, items: (page: OperationData<K>) => ItemOf<K>[]) {
  return paginated(async function* () {
    let cursor: string | null | undefined = (input as { cursor?: string }).cursor;
    do {
      const page: ApiResult<OperationData<K>> = await call(id, { ...input, cursor } as OperationInput<K>);
      yield page;
      cursor = (page.data as { nextCursor: string | null }).nextCursor;
    } while (cursor);
  }, items);
}

function byPage(call: Call, input: OperationInput<"screenContracts">) {
  return paginated(
    async function* () {
      const body = input.body ?? {};
      let page = body.page && body.page > 0 ? body.page : (input.page ?? 1);
      for (;;) {
        // The body's page wins over the query's (spec), so the page turns there.
        const result = await call("screenContracts", { ...input, body: { ...body, page } });
        yield result;
        if (!result.data.hasMore) return;
        page++;
      }
    },
    (data) => data.results,
  );
}

export function paginatedOperations(call: Call): PaginatedOperations {
  return {
    getChain: (input) => byCursor(call, "getChain", input, (data) => data.contracts),
    getEarnings: (input = {}) => byCursor(call, "getEarnings", input, (data) => data.results),
    getDividends: (input = {}) => byCursor(call, "getDividends", input, (data) => data.results),
    screenContracts: (input = {}) => byPage(call, input),
  };
}
