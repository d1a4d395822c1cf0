// GET /app-config.json: what the web app needs to know before it can sign anyone in — the auth mode
// and, with an identity provider configured (OIDC_ISSUER + OIDC_CLIENT_ID), the provider's
// authorization and token endpoints, found through its OpenID discovery document. Outside /v1 so the
// API's own shapes (/v1/config) stay as api.md has them.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { createHttpClient, type Logger } from "@scribe/kit";
import type { GatewayConfig } from "../config";
import type { AppEnv } from "../http/context";
import { json } from "./responses";

/** What /app-config.json answers; in the OpenAPI document, so the generated client carries its type. */
export const AppConfig = z
  .object({
    auth_backend: z.enum(["none", "jwt", "password"]).describe("How users sign in (AUTH_BACKEND)"),
    oidc: z
      .object({
        provider_name: z.string(),
        client_id: z.string(),
        scope: z.string(),
        issuer: z.string(),
        authorization_endpoint: z.string(),
        token_endpoint: z.string(),
      })
      .nullable()
      .describe("The identity provider that signs users in (null: not configured, or its discovery document is unreachable now)"),
    oidc_unavailable: z
      .literal(true)
      .optional()
      .describe("The identity provider is configured but could not be reached: the app says so instead of offering nothing"),
    upload: z
      .object({ max_chunk_bytes: z.number().int(), max_chunks: z.number().int() })
      .describe("UPLOAD_MAX_CHUNK_BYTES and UPLOAD_MAX_CHUNKS, so the app sizes its chunks to fit"),
  })
  .openapi("AppConfig");
export type AppConfig = z.infer<typeof AppConfig>;

const Discovery = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
});
type Discovery = z.infer<typeof Discovery>;

/** A good discovery document is kept this long; a failed fetch is retried on the next request. */
const DISCOVERY_CACHE_MS = 10 * 60_000;
const DISCOVERY_TIMEOUT_MS = 5000;
/** The operator configured the issuer (no SSRF guard, as for other configured endpoints); its answer is small. */
const discoveryHttp = createHttpClient({ guard: false, timeoutMs: DISCOVERY_TIMEOUT_MS, maxBodyBytes: 256 * 1024, maxRedirects: 3 });

/** `<issuer>/.well-known/openid-configuration` (OIDC Discovery §4: appended to the issuer's path). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
}

function discoveryCache(issuer: string, log: Logger): () => Promise<Discovery | null> {
  let cached: { value: Discovery; until: number } | null = null;
  return async () => {
    if (cached && cached.until > performance.now()) return cached.value;
    try {
      const res = await discoveryHttp.request(discoveryUrl(issuer), { headers: { accept: "application/json" } });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      const value = Discovery.parse(JSON.parse(res.body.toString("utf8")));
      cached = { value, until: performance.now() + DISCOVERY_CACHE_MS };
      return value;
    } catch (e) {
      log.error({ err: e, issuer }, "identity provider discovery failed");
      return null;
    }
  };
}

export function appConfigRoutes(app: OpenAPIHono<AppEnv>, config: GatewayConfig, log: Logger): void {
  const discover = config.OIDC_ISSUER && config.OIDC_CLIENT_ID ? discoveryCache(config.OIDC_ISSUER, log) : null;
  app.openapi(
    createRoute({ method: "get", path: "/app-config.json", operationId: "app_config", responses: { 200: json(AppConfig) } }),
    async (c) => {
      const body: AppConfig = {
        auth_backend: config.AUTH_BACKEND,
        oidc: null,
        upload: { max_chunk_bytes: config.UPLOAD_MAX_CHUNK_BYTES, max_chunks: config.UPLOAD_MAX_CHUNKS },
      };
      if (discover) {
        const found = await discover();
        if (found)
          body.oidc = {
            provider_name: config.OIDC_PROVIDER_NAME,
            client_id: config.OIDC_CLIENT_ID!,
            scope: config.OIDC_SCOPE,
            issuer: found.issuer,
            authorization_endpoint: found.authorization_endpoint,
            token_endpoint: found.token_endpoint,
          };
        else body.oidc_unavailable = true;
      }
      return c.json(body, 200, { "cache-control": "no-cache" });
    },
  );
}
