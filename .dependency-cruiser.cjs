/**
 * The layers point one way (docs/decisions.md, "Layers"). `npm run check:layers` in CI, beside
 * the cycle check.
 */
const CORE = "^src/(domain|analytics|limits|db|market|control|screener)/";

module.exports = {
  forbidden: [
    {
      name: "core-is-not-http",
      comment: "Domain, analytics, limits, db, market, control and screener know nothing of HTTP, Hono or access control.",
      severity: "error",
      from: { path: CORE },
      to: {
        path: [
          "^node_modules/hono/",
          "^src/(http|access|routes|dashboard|billing|edge-cache|openapi|reference)/",
          "^src/(app|app-env|services)\\.ts$",
        ],
      },
    },
    {
      name: "pure-core-has-no-io",
      comment: "Domain and analytics are pure: no database, no vendors, no Workers runtime.",
      severity: "error",
      from: { path: "^src/(domain|analytics)/" },
      to: { path: ["^src/(db|market|control|vendors|billing|jobs)/", "^cloudflare:", "^node_modules/(drizzle-orm|@neondatabase)/"] },
    },
    {
      name: "config-is-foundational",
      comment: "The configuration schema reads only domain formats (the admin token's).",
      severity: "error",
      from: { path: "^src/env\\.ts$" },
      to: { path: "^src/", pathNot: "^src/domain/" },
    },
    {
      name: "billing-is-not-dashboard",
      comment: "The Stripe webhook and the dashboard's pages share the control plane, not each other.",
      severity: "error",
      from: { path: "^src/billing/" },
      to: { path: "^src/dashboard/" },
    },
    {
      name: "durable-objects-is-a-leaf",
      comment: "Only the Worker's entry imports the Durable Object classes.",
      severity: "error",
      from: { path: "^(src|scripts)/", pathNot: "^src/index\\.ts$" },
      to: { path: "^durable-objects/" },
    },
    {
      name: "durable-objects-through-stable-modules",
      comment:
        "The Durable Objects import from src only the RPC contracts, the domain and the configuration; the control database only through control-database.ts.",
      severity: "error",
      from: { path: "^durable-objects/", pathNot: "^durable-objects/control-database\\.ts$" },
      to: { path: "^src/", pathNot: ["^src/(domain|limits)/", "^src/env\\.ts$"] },
    },
    {
      name: "durable-objects-control-port",
      comment: "control-database.ts reaches the control plane's reads and the database client, nothing else.",
      severity: "error",
      from: { path: "^durable-objects/control-database\\.ts$" },
      to: { path: "^src/", pathNot: ["^src/(domain|limits)/", "^src/env\\.ts$", "^src/control/(snapshot|usage)\\.ts$", "^src/db/"] },
    },
    {
      name: "ingest-below-http",
      comment:
        "The ingestion service (Node) reuses the domain, the analytics and the database layer, never the Worker's HTTP side at run time (its admin client reads the admin routes' types only).",
      severity: "error",
      from: { path: "^ingest/" },
      to: {
        path: [
          "^src/(http|access|routes|dashboard|billing|edge-cache|openapi|reference)/",
          "^src/(app|app-env|services|index)\\.ts$",
          "^durable-objects/",
          "^node_modules/hono/",
        ],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "worker-does-not-import-node-side",
      comment: "The Worker and its Durable Objects never load the ingestion service, the dev kit, the benchmarks, the tools or the tests.",
      severity: "error",
      from: { path: "^(src|durable-objects)/" },
      to: { path: "^(ingest|devkit|bench|scripts|test)/" },
    },
    {
      name: "worker-imports-nothing-of-node",
      comment: "The Worker runs in workerd: no node: built-ins beyond the nodejs_compat ones it names (none today), no Node-only packages.",
      severity: "error",
      from: { path: "^(src|durable-objects)/" },
      to: {
        path: [
          "^node:",
          "^(fs|path|child_process|net|http|https|os|worker_threads)$",
          "^node_modules/(pg|pg-copy-streams|@electric-sql|tsx)/",
        ],
      },
    },
    {
      name: "production-does-not-import-dev-rooms",
      comment:
        "Nothing deployed imports the dev kit (stand-ins, generator, npm run dev) or the benchmarks; only tests, the dev kit itself and the benchmarks do.",
      severity: "error",
      from: { path: "^(src|durable-objects|ingest|scripts)/" },
      to: { path: "^(devkit|bench|test)/" },
    },
    {
      name: "devkit-is-not-bench",
      comment: "The benchmarks use the dev kit's stand-ins and generator; the dev kit never needs the benchmarks.",
      severity: "error",
      from: { path: "^devkit/" },
      to: { path: "^(bench|test)/" },
    },
    {
      name: "ingest-db-is-the-bottom",
      comment:
        "ingest/ imports one way: the database ports (db/) know no writer, writers know no ingestor, the ingestor knows no source or CLI.",
      severity: "error",
      from: { path: "^ingest/db/" },
      to: { path: "^ingest/", pathNot: ["^ingest/db/", "^ingest/(events|log)\\.ts$"] },
    },
    {
      name: "ingest-writers-below-the-ingestor",
      comment:
        "The writers (flow, quotes, contracts, screener, session, fundamentals) never reach up to the ingestor's orchestration, the sources or the CLIs.",
      severity: "error",
      from: { path: "^ingest/(flow|quotes|contracts|screener|session|fundamentals)/" },
      to: { path: "^ingest/(pipeline/(ingestor|lane)\\.ts|sources/|cli/|run-ingestor\\.ts)" },
    },
    {
      name: "ingest-pipeline-below-sources",
      comment: "The pipeline takes events; it never knows which source (OPRA, Cboe files) produced them, nor the CLIs.",
      severity: "error",
      from: { path: "^ingest/(pipeline|flow|quotes|contracts|screener|session|fundamentals|db)/" },
      to: { path: "^ingest/(sources|cli)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    exclude: { path: "^(drizzle|\\.dev)/" },
  },
};
