// The OpenAPI document of the public API: what /openapi.json serves and what packages/client is
// generated from, built from the same routes so the two cannot differ.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { BaseConfig, createLogger } from "@scribe/kit";
import { createApp } from "./app";
import { GatewayConfig } from "./config";
import type { AppEnv, GatewayDeps } from "./http/context";
import { nullableReferences, requiredMatchesTheWire } from "./openapi-shape";

export const API_INFO = {
  title: "Scribe API",
  version: "0.1.0",
  description: "Meeting rooms, recordings and transcripts. Wire-compatible with the Reflector API (/v1).",
};

export type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

/** The document of an app's registered routes. */
export function openApiDocument(app: OpenAPIHono<AppEnv>): OpenApiDocument {
  const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO });
  nullableReferences(document);
  requiredMatchesTheWire(document);
  return document;
}

/**
 * The document of a gateway with every route (password sign-in included), built in-process without
 * a database, bus or socket: routes are only declared, never called, so the runtime dependencies are
 * placeholders that fail loudly if anything reaches for them.
 */
export function describeApi(): OpenApiDocument {
  const config = { ...BaseConfig.parse({}), ...GatewayConfig.parse({ AUTH_BACKEND: "password" }) };
  const unavailable = (what: string) =>
    new Proxy({}, { get: () => { throw new Error(`${what} is not available while describing the API`); } });
  const deps = {
    config,
    log: createLogger("gateway", "silent"),
    bus: unavailable("the bus"),
    sql: unavailable("the database"),
    auth: unavailable("the authenticator"),
    openBucket: () => unavailable("object storage"),
  } as unknown as GatewayDeps;
  return openApiDocument(createApp(deps));
}
