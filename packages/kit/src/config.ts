// Environment configuration: zod-parsed, every problem reported at once, start-up stops on any.
import { z } from "zod";
import { DEFAULT_MEDIA_TOKEN_TTL_SECONDS } from "./media-token";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export type Env = Record<string, string | undefined>;

/**
 * Settings whose default is another setting's value: the gateway serves the web app at `/`, so
 * unless it lives elsewhere, the app's address is the API's.
 */
const DEFAULTS_FROM: Record<string, string> = { UI_BASE_URL: "BASE_URL" };

export function loadConfig<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
  // Empty strings count as unset, so `FOO=` in a .env file falls back to the default.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  for (const [name, from] of Object.entries(DEFAULTS_FROM)) {
    if (name in schema.shape && cleaned[name] === undefined && cleaned[from] !== undefined) cleaned[name] = cleaned[from];
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join(".") || "(env)"}: ${i.message}${describeValue(cleaned, i.path)}`));
  }
  return result.data;
}

function describeValue(env: Env, path: PropertyKey[]): string {
  const key = String(path[0] ?? "");
  if (!key || !(key in env)) return " (not set)";
  return /SECRET|PASSWORD|KEY|TOKEN/.test(key) ? " (value hidden)" : ` (got ${JSON.stringify(env[key])})`;
}

/** Booleans as environment strings: true/false/1/0/yes/no. */
export const envBool = (def: boolean) =>
  z
    .string()
    .default(def ? "true" : "false")
    .transform((v, ctx) => {
      const s = v.trim().toLowerCase();
      if (["true", "1", "yes", "on"].includes(s)) return true;
      if (["false", "0", "no", "off"].includes(s)) return false;
      ctx.addIssue({ code: "custom", message: "expected true or false" });
      return z.NEVER;
    });

export const envInt = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def);

/**
 * The reference accepts SQLAlchemy-style URLs (`postgresql+asyncpg://`); accept and normalise them
 * so existing deployments can move over.
 */
export const databaseUrl = z
  .string()
  .default("postgres://postgres@127.0.0.1:5432/scribe")
  .transform((v) => v.replace(/^postgresql\+\w+:\/\//, "postgresql://"))
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a PostgreSQL URL (postgres://…)");

/** Settings every service reads. */
export const BaseConfig = z.object({
  DATABASE_URL: databaseUrl.describe("PostgreSQL URL; each service uses its own schema in this database"),
  DATABASE_POOL_SIZE: envInt(10, 1, 200).describe("connections per service"),
  NATS_URL: z.string().default("nats://127.0.0.1:4222").describe("NATS server(s) with JetStream, comma-separated"),
  NATS_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]*$/, "letters, digits, '_' and '-' only")
    .default("")
    .describe("prefix for stream names and subjects, so several installations can share one NATS"),
  NATS_STREAM_REPLICAS: envInt(1, 1, 5).describe(
    'copies of every stream, the workflow queue and the versions bucket (3 on a clustered JetStream; see "Replicas and a NATS cluster")',
  ),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info").describe("pino log level"),
  LOG_FORMAT: z
    .enum(["json", "pretty"])
    .optional()
    .describe(
      "`json`: one JSON object per log line, for log collectors (default of `scribe up`); `pretty`: coloured, human-readable lines (default of `scribe dev`)",
    ),
  MIGRATE_ON_START: envBool(true).describe("apply the service's pending migrations when it starts"),
  STARTUP_BACKOFF_MAX_MS: envInt(30000, 100).describe(
    "longest pause between attempts to reach PostgreSQL or NATS at start-up (from 0.5 s, doubling); the service waits, not ready, until both answer",
  ),
  OPS_PORT: envInt(9464, 0, 65535).describe("port of /livez, /readyz and /metrics for the process; 0 disables it"),
  SHUTDOWN_TIMEOUT_MS: envInt(15000, 100).describe(
    "graceful shutdown limit before the process exits anyway; the gateway gives requests in flight half of it, then closes their connections",
  ),
  RPC_TIMEOUT_MS: envInt(10000, 100).describe("deadline of a request from the gateway to a service"),
  CONSUMER_MAX_DELIVER: envInt(8, 1, 1000).describe("deliveries of a failing event before it is dead-lettered"),
  CONSUMER_ACK_WAIT_MS: envInt(30000, 1000).describe("time a consumer has to acknowledge an event before redelivery"),
  OUTBOX_POLL_MS: envInt(1000, 10).describe("outbox relay poll interval when no NOTIFY arrives"),
  OUTBOX_REFUSED_RETRY_MS: envInt(600_000, 1000).describe(
    "how long an event the message server refused for good (over its max_payload) waits before it is tried again",
  ),
});
export type BaseConfig = z.infer<typeof BaseConfig>;

/**
 * Settings several services read, declared once so name, default and meaning agree everywhere.
 * A service's config picks the ones it needs: `z.object({ PUBLIC_MODE: SharedSettings.PUBLIC_MODE })`.
 */
export const SharedSettings = {
  AUTH_BACKEND: z
    .enum(["none", "jwt", "password"])
    .default("none")
    .describe("none (everyone anonymous) | jwt (identity-provider tokens) | password (one shared login)"),
  PUBLIC_MODE: envBool(false).describe(
    "public instance: anonymous callers may list, search and create; their data is deleted after PUBLIC_DATA_RETENTION_DAYS",
  ),
  SECRET_KEY: z
    .string()
    .min(16)
    .default("changeme-f02f86fd8b3e4fd892c6043e5a298e21")
    .describe(
      "signs password-mode tokens and audio links, keys the API-key hash; the gateway refuses to start with the default, another published placeholder or fewer than 32 characters (`scribe dev` makes its own)",
    ),
  UI_BASE_URL: z
    .url()
    .default("http://localhost:1250")
    .describe(
      "web app address, for links in webhooks, e-mails, chat and ICS room matching; unset: BASE_URL (the gateway serves the app at `/`)",
    ),
  BASE_URL: z.url().default("http://localhost:1250").describe("public address of this API"),
  ALLOW_PRIVATE_URLS: envBool(false).describe(
    "let user-given URLs (ICS feeds, webhooks) reach loopback, private and link-local addresses; off = refused (SSRF guard)",
  ),
  MEDIA_TOKEN_TTL_SECONDS: envInt(DEFAULT_MEDIA_TOKEN_TTL_SECONDS, 1, 86_400).describe(
    "lifetime of the token in audio links (`?token=`): internal ones and those `POST /v1/transcripts/{id}/audio/token` gives the web app",
  ),
  UPLOAD_MAX_CHUNKS: envInt(10_000, 1, 1_000_000).describe("largest `total_chunks` the upload API accepts for one file"),
  UPLOAD_MAX_CHUNK_BYTES: envInt(64 * 1024 ** 2, 1024).describe(
    "largest body of one upload request (one chunk with its multipart framing), in bytes; refused with 413 as it streams in",
  ),
};

/**
 * Whether anonymous callers may use the routes that need a user "unless PUBLIC_MODE" (list, search,
 * create transcript…). AUTH_BACKEND=none never refuses them (behaviour §7.5: it has no users at all),
 * whatever PUBLIC_MODE says; PUBLIC_MODE only changes what they see there.
 */
export function anonymousMayUsePublicRoutes(config: { PUBLIC_MODE: boolean; AUTH_BACKEND: "none" | "jwt" | "password" }): boolean {
  return config.PUBLIC_MODE || config.AUTH_BACKEND === "none";
}

export interface ConfigDoc {
  name: string;
  default: string;
  description: string;
}

/** Name, default and description of every variable of a schema (for the README's table). */
export function describeConfig(schema: z.ZodObject): ConfigDoc[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const f = field as z.ZodType;
    const parsed = f.safeParse(undefined);
    const value = parsed.success ? parsed.data : undefined;
    return {
      name,
      default: !parsed.success ? "(required)" : value === undefined ? "(unset)" : value === "" ? '""' : String(value),
      description: f.description ?? "",
    };
  });
}
