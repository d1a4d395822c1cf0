// Scribe's web app (services/web, built by `pnpm --filter @scribe/web build`) at `/`, with the SPA
// fallback: any other GET outside the API answers index.html so deep links reach the client router.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";

/** Where the workspace's web build lands (the gateway runs from source, so this is stable). */
export const WEB_DIST_DIR = fileURLToPath(new URL("../../../web/dist", import.meta.url));

const API_PREFIXES = ["/v1/", "/v1", "/openapi.json", "/docs", "/health", "/metrics"];
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Every file of the build, by URL path; held in memory (the build is small) so no request touches the disk. */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const file = join(folder, name);
      if (statSync(file).isDirectory()) walk(file);
      else
        assets.set(`/${relative(dir, file).split("\\").join("/")}`, {
          body: readFileSync(file),
          type: TYPES[extname(name)] ?? "application/octet-stream",
        });
    }
  };
  walk(dir);
  return assets;
}

/** Registers nothing when the app has not been built, so the API alone still runs. Register last. */
export function webAppRoutes(app: OpenAPIHono<AppEnv>, dir = WEB_DIST_DIR): void {
  if (!existsSync(join(dir, "index.html"))) return;
  const assets = loadAssets(dir);
  const index = assets.get("/index.html")!;
  app.get("*", (c) => {
    const path = c.req.path;
    if (API_PREFIXES.some((p) => path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`))) return c.json({ detail: "Not Found" }, 404);
    const asset = assets.get(path);
    if (asset) {
      // Vite names assets by content hash, so they never change under one name.
      const cache = path.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache";
      return c.body(new Uint8Array(asset.body), 200, { "content-type": asset.type, "cache-control": cache });
    }
    if (path.startsWith("/assets/")) return c.json({ detail: "Not Found" }, 404);
    return c.body(new Uint8Array(index.body), 200, { "content-type": index.type, "cache-control": "no-cache" });
  });
}
