import type { Hono } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../app-env";
import { pageHeaders } from "../http/page-headers";

/** The renderer's one file we serve (Workers static assets: `node_modules/redoc/bundles`, see wrangler.toml). */
const RENDERER = "redoc.standalone.js";

/**
 * Redoc injects its styles at run time (styled-components) and runs its search in a blob worker:
 * this page alone allows inline styles and blob workers; scripts still come only from our origin.
 */
const docsHeaders = pageHeaders({
  styleSrc: ["'unsafe-inline'"],
  allow: { fontSrc: ["'self'", "data:"], workerSrc: ["'self'", "blob:"], connectSrc: ["'self'"] },
});

/** `/docs`: the API reference, rendered in the browser from `/openapi.json`. */
export function mountApiReference(app: Hono<AppEnv>): void {
  // "/docs/*" covers "/docs" too.
  app.use("/docs/*", docsHeaders);
  app.get("/docs", (c) =>
    c.html(
      html`<!doctype html>
        <html lang="en">
          <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>API reference · Options Data Service</title>
          </head>
          <body>
            <noscript>The API reference needs JavaScript; the raw description is at <a href="/openapi.json">/openapi.json</a>.</noscript>
            <redoc spec-url="/openapi.json"></redoc>
            <script src="/docs/assets/${RENDERER}"></script>
          </body>
        </html>`,
      200,
      { "Cache-Control": "public, max-age=3600" },
    ),
  );
  app.get(`/docs/assets/${RENDERER}`, async (c) => {
    const asset = await c.env.ASSETS.fetch(new URL(`/${RENDERER}`, c.req.url));
    const res = new Response(asset.body, asset);
    res.headers.set("Cache-Control", "public, max-age=86400");
    return res;
  });
}
