import { pathPattern, trailingSymbolParam, type RouteSpec } from "./route";

interface PathEntry {
  pattern: RegExp;
  /** Admin API paths exist only while an admin token is configured. */
  admin: boolean;
  allow: string;
  /** For paths ending in a parameter: the request paths that leave it empty. */
  emptyParam?: { name: string; paths: string[] };
}

/**
 * For an unmatched request, tells whether the path is known (→ 405 with `Allow`) or not (→ 404).
 * HEAD is allowed wherever GET is.
 */
export class MethodTable {
  readonly #entries: PathEntry[];

  constructor(routes: readonly RouteSpec[]) {
    const byPath = new Map<string, Set<string>>();
    const adminPaths = new Set(routes.filter((r) => r.access === "admin").map((r) => r.path));
    for (const route of routes) {
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        const methods = byPath.get(path) ?? new Set<string>();
        methods.add(route.method.toUpperCase());
        if (route.method === "get") methods.add("HEAD");
        byPath.set(path, methods);
      }
    }
    const order = ["GET", "HEAD", "POST", "PUT"];
    this.#entries = [...byPath].map(([path, methods]) => {
      // Only symbol parameters: an empty one is the spec's 400 `missing_symbol`.
      const trailing = trailingSymbolParam(path);
      return {
        pattern: pathPattern(path),
        admin: adminPaths.has(path),
        allow: order.filter((m) => methods.has(m)).join(", "),
        ...(trailing ? { emptyParam: { name: trailing.name, paths: [trailing.prefix, `${trailing.prefix}/`] } } : {}),
      };
    });
  }

  /** The `Allow` value for a known path, or undefined when no route has this path (or only the absent admin API). */
  allowFor(pathname: string, adminEnabled: boolean): string | undefined {
    return this.#entries.find((e) => (adminEnabled || !e.admin) && e.pattern.test(pathname))?.allow;
  }

  /** The name of the trailing path parameter this request left empty (`/v1/expirations/`), if any. */
  emptyParamOf(pathname: string): string | undefined {
    return this.#entries.find((e) => e.emptyParam?.paths.includes(pathname))?.emptyParam?.name;
  }
}
