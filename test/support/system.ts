// Starts Scribe services in the test process against a fresh database and a unique bus prefix, in one
// of the auth modes, so tests can act as different users.
import { DLQ_STREAM, STREAMS } from "@scribe/contracts";
import { createScribeClient, ok, type ScribeClient } from "@scribe/client";
import { VERSIONS_BUCKET, connectBus, startProcess, type RunningProcess } from "@scribe/kit";
import { createTestDatabase, testPrefix, TEST_NATS_URL, type TestDatabase } from "@scribe/kit/testing";
import { servicesByName } from "@scribe/cli";
import { SignJWT } from "jose";
import { startIdp, type IdpSimulator } from "@scribe/simulators";

export const TEST_SECRET = "test-secret-key-for-scribe-e2e-only";

/** Test responses: JSON bodies are asserted field by field, so they are typed loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonResponse = Omit<Response, "json"> & { json(): Promise<any> };
export type Client = (path: string, init?: RequestInit) => Promise<JsonResponse>;

/**
 * - `password` (default): tokens are HS256 with SECRET_KEY for any user name, as the login issues them;
 *   the user id is the name ("alice").
 * - `jwt`: an identity-provider simulator is started; tokens are the provider's, for provider uid =
 *   the name; the user id is the local id created on first sight (`await sys.userId("alice")`).
 * - `none`: everyone is anonymous; `as("alice")` still sends a token, which is ignored.
 */
export type AuthMode = "none" | "password" | "jwt";

export interface TestSystem {
  baseUrl: string;
  prefix: string;
  db: TestDatabase;
  env: Record<string, string>;
  auth: AuthMode;
  process: RunningProcess;
  /** The identity-provider simulator (jwt mode only). */
  idp: IdpSimulator | null;
  /** A bearer token for the user called `name` in this mode. */
  token(name: string, email?: string): Promise<string>;
  /** fetch against the gateway as the user called `name` (or anonymously with null). */
  as(name: string | null): Client;
  /** The typed API client as the user called `name` (or anonymously with null). */
  client(name: string | null): ScribeClient;
  /** The typed API client sending this API key. */
  clientWithApiKey(key: string): ScribeClient;
  /** The typed API client sending exactly these credentials (a media token, a foreign one, a key and a token). */
  clientWith(credentials: { token?: string; apiKey?: string }): ScribeClient;
  /** fetch with exactly these headers (e.g. `{ "x-api-key": key }`). */
  withHeaders(headers: Record<string, string>): Client;
  /** The local user id of `name` (jwt: created by its first token; other modes: the name itself). */
  userId(name: string): Promise<string>;
  /** Creates an API key for `name` through the API. */
  createApiKey(name: string, label?: string | null): Promise<{ id: string; key: string }>;
  stop(): Promise<void>;
}

export interface SystemOptions {
  label: string;
  /** The services this process runs: every one when omitted or empty; "none" for a caller that runs them as processes of its own (with `env`). */
  services?: string[] | "none";
  env?: Record<string, string>;
  auth?: AuthMode;
  /** The services' DATABASE_URL from the test database's (e.g. through a TCP proxy that can go away). */
  databaseUrl?: (testDatabaseUrl: string) => string;
  /** jwt: use this simulator instead of starting one (it is not closed by stop()). */
  idp?: IdpSimulator;
}

export async function startSystem(opts: SystemOptions): Promise<TestSystem> {
  const auth = opts.auth ?? "password";
  const idp = auth === "jwt" ? (opts.idp ?? (await startIdp())) : null;
  const ownIdp = idp !== null && opts.idp === undefined;
  const db = await createTestDatabase(opts.label);
  const prefix = testPrefix(opts.label);
  const env: Record<string, string> = {
    DATABASE_URL: opts.databaseUrl ? opts.databaseUrl(db.url) : db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    PORT: "0",
    HOST: "127.0.0.1",
    OPS_PORT: "0",
    AUTH_BACKEND: auth,
    SECRET_KEY: TEST_SECRET,
    // Errors only: a failure in CI then shows what went wrong inside the services.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error",
    OUTBOX_POLL_MS: "200",
    // Several whole systems run at once in the suite; small pools keep PostgreSQL's connections enough.
    DATABASE_POOL_SIZE: "3",
    ...(idp
      ? {
          AUTH_JWT_JWKS_URL: idp.jwksUrl,
          AUTH_JWT_ISSUER: idp.issuer,
          AUTH_JWT_AUDIENCE: idp.audience,
          // Tests rotate keys and expect the next request to see them; production waits 30 s between refetches.
          AUTH_JWT_JWKS_COOLDOWN_SECONDS: "0",
        }
      : {}),
    ...opts.env,
  };
  let running: RunningProcess;
  try {
    running = await startProcess(opts.services === "none" ? [] : servicesByName(opts.services ?? []), env);
  } catch (e) {
    if (ownIdp) await idp.close();
    await db.drop();
    throw e;
  }
  const gateway = running.services.find((s) => s.name === "gateway");
  const baseUrl = gateway ? `http://127.0.0.1:${gateway.exports.port as number}` : "";

  const token = (name: string, email = `${name}@example.com`): Promise<string> =>
    idp ? idp.token({ sub: name, email, email_verified: true }) : passwordModeToken(name, email);

  const request = async (path: string, init: RequestInit, extra: Record<string, string>) => {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(extra)) if (!headers.has(k)) headers.set(k, v);
    if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
    return (await fetch(`${baseUrl}${path}`, { ...init, headers })) as JsonResponse;
  };
  const as =
    (name: string | null): Client =>
    async (path, init = {}) =>
      request(path, init, name ? { authorization: `Bearer ${await token(name)}` } : {});

  const client = (name: string | null): ScribeClient => createScribeClient({ baseUrl, token: name ? () => token(name) : undefined });

  const ids = new Map<string, string>();
  const userId = async (name: string): Promise<string> => {
    if (auth !== "jwt") return name;
    const known = ids.get(name);
    if (known) return known;
    const me = await ok(client(name).GET("/v1/me"));
    if (!me) throw new Error(`GET /v1/me as ${name}: anonymous`);
    const id = me.sub;
    ids.set(name, id);
    return id;
  };

  return {
    baseUrl,
    prefix,
    db,
    env,
    auth,
    process: running,
    idp,
    token,
    as,
    client,
    clientWithApiKey: (key) => createScribeClient({ baseUrl, apiKey: key }),
    clientWith: ({ token, apiKey }) => createScribeClient({ baseUrl, token, apiKey }),
    withHeaders:
      (headers) =>
      async (path, init = {}) =>
        request(path, init, headers),
    userId,
    async createApiKey(name, label = null) {
      const { id, key } = await ok(client(name).POST("/v1/user/api-keys", { body: { name: label } }));
      return { id, key };
    },
    async stop() {
      await running.stop();
      if (ownIdp) await idp.close();
      await deleteStreams(prefix);
      await db.drop();
    },
  };
}

/** A bearer token for the user called `name` as the password login issues them (HS256 with TEST_SECRET). */
export function passwordModeToken(name: string, email = `${name}@example.com`): Promise<string> {
  return new SignJWT({ email })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(name)
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(TEST_SECRET));
}

export async function deleteStreams(prefix: string): Promise<void> {
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: "test-cleanup" });
  for (const s of [...Object.keys(STREAMS), DLQ_STREAM.name]) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
  // The gateway replicas' shared versions bucket (a key-value bucket is the stream KV_<bucket>).
  await bus.jsm.streams.delete(`KV_${bus.stream(VERSIONS_BUCKET)}`).catch(() => {});
  await bus.close();
}

/** Every event on a stream, parsed, in stream order. */
export async function streamEvents(
  prefix: string,
  stream: string,
  natsUrl = TEST_NATS_URL,
): Promise<{ type: string; id: string; subject: string; data: Record<string, unknown> }[]> {
  const bus = await connectBus({ url: natsUrl, prefix, name: "test-reader" });
  try {
    const info = await bus.jsm.streams.info(bus.stream(stream)).catch(() => null);
    if (!info || info.state.messages === 0) return [];
    const out = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await bus.jsm.streams.getMessage(bus.stream(stream), { seq }).catch(() => null);
      if (m) out.push(JSON.parse(new TextDecoder().decode(m.data)));
    }
    return out;
  } finally {
    await bus.close();
  }
}
