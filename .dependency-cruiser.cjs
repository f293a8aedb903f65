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
      comment: "The ingestion service (Node) reuses the domain, the analytics and the database layer, never the Worker's HTTP side.",
      severity: "error",
      from: { path: "^ingest/" },
      to: {
        path: [
          "^src/(http|access|routes|dashboard|billing|edge-cache|openapi|reference)/",
          "^src/(app|app-env|services|index)\\.ts$",
          "^durable-objects/",
          "^node_modules/hono/",
        ],
      },
    },
    {
      name: "worker-does-not-import-ingest",
      comment: "The Worker and its Durable Objects never load the ingestion service.",
      severity: "error",
      from: { path: "^(src|durable-objects)/" },
      to: { path: "^ingest/" },
    },
    {
      name: "ingest-does-not-import-tools",
      comment: "The loaders and the dev tools are adapters over the ingestion pipeline, not the other way round.",
      severity: "error",
      from: { path: "^ingest/" },
      to: { path: "^(scripts|test)/" },
    },
    {
      name: "worker-does-not-import-tools",
      comment: "The Worker never imports scripts or tests.",
      severity: "error",
      from: { path: "^(src|durable-objects)/" },
      to: { path: "^(scripts|test)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    exclude: { path: "^(drizzle|\\.dev)/" },
  },
};
