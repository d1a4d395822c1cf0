// Environment of the gateway (reference names: PORT, CORS_ORIGIN, CORS_ALLOW_CREDENTIALS, AUTH_BACKEND,
// AUTH_JWT_*, ADMIN_EMAIL, ADMIN_PASSWORD_HASH, SECRET_KEY, PUBLIC_MODE; the rest are Scribe's own).
import { isIP } from "node:net";
import { SharedSettings, StorageConfig, envBool, envInt } from "@scribe/kit";
import { z } from "zod";
import { parsePasswordHash } from "./auth/password-hash";

/** Asymmetric signature algorithms only: HS* would let anyone holding the public key sign, `none` anyone at all. */
export const IDP_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

/** Comma-separated list, blanks dropped. */
export function csv(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

const algorithmList = z
  .string()
  .default("RS256")
  .refine((v) => csv(v).length > 0 && csv(v).every((a) => (IDP_ALGORITHMS as readonly string[]).includes(a)), {
    message: `comma-separated list of ${IDP_ALGORITHMS.join(", ")} (HS* and none are refused)`,
  });

/** An IP address or a CIDR block (`10.0.0.0/8`, `fd00::/8`). */
export function isAddressOrCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d+$/.test(bits) && n <= (family === 4 ? 32 : 128);
}

const optional = z.string().optional();

export const GatewayConfig = z.object({
  PORT: envInt(1250, 0, 65535).describe("HTTP port of the public API"),
  HOST: z.string().default("0.0.0.0").describe("address the API listens on"),
  CORS_ORIGIN: z.string().default("*").describe("allowed origins, comma-separated; * allows any"),
  CORS_ALLOW_CREDENTIALS: envBool(false).describe("send Access-Control-Allow-Credentials"),
  AUTH_BACKEND: SharedSettings.AUTH_BACKEND,
  SECRET_KEY: SharedSettings.SECRET_KEY,
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  IDEMPOTENCY_RETENTION_HOURS: envInt(24, 1).describe(
    "how long a create's answer is kept for its Idempotency-Key: the same key and body within it get that answer again",
  ),
  MAX_JSON_BODY_BYTES: envInt(1_048_576, 1024).describe("largest request body of the JSON routes (413 past it, whatever the content type)"),
  WEBHOOK_MAX_BODY_BYTES: envInt(65_536, 1024).describe(
    "largest body of an incoming video-platform webhook (/v1/daily/webhook, /v1/whereby)",
  ),
  UPLOAD_MAX_CHUNKS: SharedSettings.UPLOAD_MAX_CHUNKS,
  UPLOAD_MAX_CHUNK_BYTES: SharedSettings.UPLOAD_MAX_CHUNK_BYTES,
  ANONYMOUS_UPLOADS_PER_HOUR: envInt(10, 1).describe("PUBLIC_MODE: uploads an anonymous client address may start per hour; 429 past it"),
  ANONYMOUS_UPLOAD_BYTES_PER_HOUR: envInt(2 * 1024 ** 3, 1).describe(
    "PUBLIC_MODE: bytes an anonymous client address may upload per hour; 429 once reached",
  ),

  AUTH_JWT_JWKS_URL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe("jwt: the identity provider's JWKS URL (keys cached, rotation picked up without restart); or set AUTH_JWT_PUBLIC_KEY"),
  AUTH_JWT_PUBLIC_KEY: optional.describe("jwt: the identity provider's public key or certificate, as PEM text or the path of a PEM file"),
  AUTH_JWT_ALGORITHM: algorithmList.describe("jwt: accepted signature algorithms, comma-separated"),
  AUTH_JWT_AUDIENCE: optional.describe(
    "jwt: expected `aud` (the OAuth client id), comma-separated for several; unset refuses tokens that carry an audience",
  ),
  AUTH_JWT_ISSUER: optional.describe("jwt: expected `iss`; unset skips the issuer check"),
  AUTH_JWT_JWKS_CACHE_SECONDS: envInt(600, 0).describe("jwt: how long fetched JWKS keys are used before they are fetched again"),
  AUTH_JWT_JWKS_COOLDOWN_SECONDS: envInt(30, 0).describe(
    "jwt: a token with an unknown key id refetches the JWKS at most once per this many seconds",
  ),
  AUTH_JWT_JWKS_TIMEOUT_MS: envInt(5000, 100).describe("jwt: deadline of a JWKS request"),
  OIDC_ISSUER: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      "jwt: the identity provider's issuer URL; set (with OIDC_CLIENT_ID), the web app signs in through it (authorization code + PKCE; endpoints from its /.well-known/openid-configuration)",
    ),
  OIDC_CLIENT_ID: optional.describe("jwt: the web app's OAuth client id at the identity provider (a public client: no secret)"),
  OIDC_SCOPE: z.string().default("openid email profile").describe("jwt: scopes the web app asks the identity provider for"),
  OIDC_PROVIDER_NAME: z.string().default("single sign-on").describe("jwt: the provider's name on the web app's \"Sign in with …\" button"),

  ADMIN_EMAIL: optional.describe("password: e-mail (login name) of the user created or updated at start-up"),
  ADMIN_PASSWORD_HASH: optional
    .refine((v) => v === undefined || parsePasswordHash(v) !== null, { message: "expected pbkdf2:sha256:<iterations>$<salt>$<hex digest>" })
    .describe("password: that user's password as `pbkdf2:sha256:<iterations>$<salt>$<hex>` (`pnpm scribe hash-password`)"),
  ADMIN_PASSWORD: optional.describe("password: that user's password in plain text, hashed at start-up (instead of ADMIN_PASSWORD_HASH)"),
  LOGIN_TOKEN_TTL_SECONDS: envInt(86_400, 60).describe("password: lifetime of the token POST /v1/auth/login issues"),
  LOGIN_RATE_LIMIT_ATTEMPTS: envInt(10, 1).describe("password: login attempts allowed per client address in the window"),
  LOGIN_RATE_LIMIT_WINDOW_SECONDS: envInt(300, 1).describe("password: rolling window of the login rate limit"),
  TRUSTED_PROXIES: z
    .string()
    .default("")
    .refine((v) => csv(v).every(isAddressOrCidr), { message: "comma-separated IP addresses or CIDR blocks" })
    .describe("proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For names the client address; empty trusts none"),
  MEDIA_TOKEN_TTL_SECONDS: SharedSettings.MEDIA_TOKEN_TTL_SECONDS,
  METRICS_ON_API_PORT: envBool(false).describe(
    "also serve /metrics on the public API port (it is always on OPS_PORT); off keeps internal counters off the public address",
  ),
  HTTP_REQUEST_TIMEOUT_MS: envInt(300_000, 1000).describe(
    "longest time a client may take to send one whole request, headers and body (an upload chunk on a slow line); the connection is cut past it",
  ),
  WS_MAX_TRANSCRIPT_SOCKETS_PER_CLIENT: envInt(20, 1).describe(
    "transcript WebSockets (/v1/transcripts/{id}/events) one client address may hold open at once on a gateway; past it the handshake is a 429",
  ),
  WS_PING_INTERVAL_MS: envInt(30_000, 0).describe(
    "interval of WebSocket protocol pings; a socket that leaves two in a row unanswered is dropped (vanished clients); 0 = no pings",
  ),
  UPLOAD_PROCESSING_TIMEOUT_MS: envInt(600_000, 1000).describe(
    "how long the last chunk of an upload may take to be assembled and checked before the request fails",
  ),
  // Media routes stream objects from the locations the recordings service answers.
  ...StorageConfig.shape,
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/**
 * Problems between settings (a field alone cannot see them). The bootstrap merges this schema into
 * the base one, which drops object-level refinements, so start-up calls this and stops on any.
 */
export function authConfigProblems(config: GatewayConfig): string[] {
  const problems: string[] = [];
  if (config.AUTH_BACKEND === "jwt") {
    if (!config.AUTH_JWT_JWKS_URL && !config.AUTH_JWT_PUBLIC_KEY) {
      problems.push("AUTH_JWT_JWKS_URL or AUTH_JWT_PUBLIC_KEY: AUTH_BACKEND=jwt needs one of them to verify tokens (not set)");
    }
    if (config.AUTH_JWT_JWKS_URL && config.AUTH_JWT_PUBLIC_KEY) {
      problems.push("AUTH_JWT_JWKS_URL and AUTH_JWT_PUBLIC_KEY: set only one of them");
    }
  }
  if (Boolean(config.OIDC_ISSUER) !== Boolean(config.OIDC_CLIENT_ID)) {
    problems.push("OIDC_ISSUER and OIDC_CLIENT_ID: the web app's identity-provider sign-in needs both (one is not set)");
  }
  if (config.OIDC_ISSUER && config.AUTH_BACKEND !== "jwt") {
    problems.push(`OIDC_ISSUER: only AUTH_BACKEND=jwt accepts the identity provider's tokens (AUTH_BACKEND is ${config.AUTH_BACKEND})`);
  }
  if (config.AUTH_BACKEND === "password") {
    if (config.ADMIN_PASSWORD_HASH && config.ADMIN_PASSWORD) {
      problems.push("ADMIN_PASSWORD_HASH and ADMIN_PASSWORD: set only one of them");
    }
    if ((config.ADMIN_PASSWORD_HASH || config.ADMIN_PASSWORD) && !config.ADMIN_EMAIL) {
      problems.push("ADMIN_EMAIL: needed with ADMIN_PASSWORD_HASH / ADMIN_PASSWORD (not set)");
    }
    if (config.ADMIN_EMAIL && !config.ADMIN_PASSWORD_HASH && !config.ADMIN_PASSWORD) {
      problems.push("ADMIN_PASSWORD_HASH or ADMIN_PASSWORD: needed with ADMIN_EMAIL (not set)");
    }
  }
  return problems;
}
