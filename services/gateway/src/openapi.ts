// The OpenAPI document of the public API: what /openapi.json serves and what packages/client is
// generated from, built from the same routes so the two cannot differ.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { BaseConfig, createLogger } from "@scribe/kit";
import { createApp } from "./app";
import { GatewayConfig } from "./config";
import { CREDENTIAL_FREE_PATHS, type AppEnv, type GatewayDeps } from "./http/context";
import { describeProperties } from "./openapi-descriptions";
import { describeOperations } from "./openapi-operations";
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
  describeOperations(document, CREDENTIAL_FREE_PATHS);
  describeProperties(document);
  return document;
}

/**
 * A gateway app with every route (password sign-in and /metrics included), built in-process without
 * a database, bus or socket: its routes are there to be described (and its static pages served), so
 * the runtime dependencies are placeholders that fail loudly if anything reaches for them.
 */
export function offlineApp(): OpenAPIHono<AppEnv> {
  const config = { ...BaseConfig.parse({}), ...GatewayConfig.parse({ AUTH_BACKEND: "password", METRICS_ON_API_PORT: "true" }) };
  const unavailable = (what: string) =>
    new Proxy(
      {},
      {
        get: () => {
          throw new Error(`${what} is not available while describing the API`);
        },
      },
    );
  const deps = {
    config,
    log: createLogger("gateway", "silent"),
    clock: unavailable("the clock"),
    bus: unavailable("the bus"),
    sql: unavailable("the database"),
    auth: unavailable("the authenticator"),
    openBucket: () => unavailable("object storage"),
  } as unknown as GatewayDeps;
  return createApp(deps);
}

/** The document of every route a gateway may serve: what packages/client is generated from. */
export function describeApi(): OpenApiDocument {
  return openApiDocument(offlineApp());
}
