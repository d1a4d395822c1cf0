// Root routes: health, Prometheus metrics (opt-in), the OpenAPI document and an offline API reference page.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { registry } from "@scribe/kit";
import type { AppEnv } from "../http/context";
import { API_INFO, openApiDocument, type OpenApiDocument } from "../openapi";
import { json } from "./responses";

/** `metricsOnApiPort`: also serve /metrics here (it is always on the ops port, OPS_PORT). */
export function systemRoutes(app: OpenAPIHono<AppEnv>, opts: { metricsOnApiPort: boolean }): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      operationId: "health",
      responses: { 200: json(z.object({ status: z.string() })) },
    }),
    (c) => c.json({ status: "healthy" }, 200),
  );
  if (opts.metricsOnApiPort) {
    app.get("/metrics", async (c) => c.body(await registry.metrics(), 200, { "content-type": registry.contentType }));
    app.openAPIRegistry.registerPath({
      method: "get",
      path: "/metrics",
      operationId: "metrics",
      responses: { 200: { description: "Prometheus text exposition", content: { "text/plain": { schema: z.string() } } } },
    });
  }

  // Built on first request, when every route is registered.
  let document: OpenApiDocument | undefined;
  app.get("/openapi.json", (c) => c.json((document ??= openApiDocument(app)), 200));

  // Swagger UI served from the installed package so the reference page works without internet.
  const uiDir = (createRequire(import.meta.url)("swagger-ui-dist") as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
  const assets: Record<string, { body: string; type: string }> = {
    "swagger-ui.css": { body: readFileSync(join(uiDir, "swagger-ui.css"), "utf8"), type: "text/css" },
    "swagger-ui-bundle.js": { body: readFileSync(join(uiDir, "swagger-ui-bundle.js"), "utf8"), type: "text/javascript" },
  };
  app.get("/docs/assets/:file", (c) => {
    const asset = assets[c.req.param("file")];
    return asset ? c.body(asset.body, 200, { "content-type": asset.type, "cache-control": "public, max-age=86400" }) : c.notFound();
  });
  app.get("/docs", (c) =>
    c.html(`<!doctype html><html><head><meta charset="utf-8"><title>${API_INFO.title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui" });</script></body></html>`),
  );
}
