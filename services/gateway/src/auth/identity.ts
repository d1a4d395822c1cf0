// Resolves who is calling from the request's credentials. Only authentication happens here:
// services receive the caller and decide what it may see or change.
import { ANONYMOUS, type Caller } from "@scribe/contracts";
import { Unauthorized, Unavailable, isAppError, type Logger, type MediaTokenScope, type Sql, systemClock, type Clock } from "@scribe/kit";
import type { GatewayConfig } from "../config";
import { apiKeyOwner, upsertProviderUser } from "../store";
import { MAX_API_KEY_LENGTH, hashApiKey } from "./api-keys";
import { createIdpVerifier, type IdpClaims } from "./jwt";
import { bearerToken, mintMediaToken, verifyMediaToken, verifyPasswordToken } from "./tokens";
import { VerifiedTokens } from "./verified-tokens";

export type AuthBackend = GatewayConfig["AUTH_BACKEND"];

export interface Credentials {
  /** The Authorization header as sent. */
  authorization?: string | undefined;
  /** The X-API-Key header as sent. */
  apiKey?: string | undefined;
}

export interface Authenticator {
  readonly backend: AuthBackend;
  /**
   * The caller of an HTTP request: anonymous without credentials (and always with AUTH_BACKEND=none);
   * 401 "Invalid authentication" for a bearer token that does not verify, even where anonymous
   * callers are welcome; an unknown API key is ignored (reference); a key and a token of two
   * different users are a 401.
   */
  resolve(credentials: Credentials): Promise<Caller>;
  /**
   * A bare bearer token of this backend (WebSocket `Sec-WebSocket-Protocol: bearer, <token>`).
   * Throws 401 "Invalid authentication"; AUTH_BACKEND=none answers anonymous whatever is sent.
   * API keys are not accepted here (reference).
   */
  verifyToken(token: string): Promise<Caller>;
  /**
   * `?token=` of an audio link (behaviour §6.10 step 2): a bearer token of this backend, else an
   * internal media token for the audio of transcript `audioOf` (null: the link is not an audio
   * link, media tokens open nothing there); otherwise 401 "Invalid or expired token" (the route
   * adds `WWW-Authenticate: Bearer`).
   */
  verifyLinkToken(token: string, audioOf: string | null): Promise<Caller>;
  /** A media token for one transcript's audio link (MEDIA_TOKEN_TTL_SECONDS, 15 minutes by default). */
  mintMediaToken(scope: MediaTokenScope): Promise<string>;
}

export interface AuthenticatorDeps {
  config: GatewayConfig;
  sql: Sql;
  log: Logger;
  /** The clock, so tests can move it. */
  now?: Clock;
}

const INVALID = "Invalid authentication";

/**
 * Provider users recently seen with the same e-mail and flag: their next requests skip the database.
 * A token whose claims differ always goes to the database (so they stay current); the local id of a
 * provider uid never changes. Bounded, oldest entry evicted first.
 */
class RecentProviderUsers {
  private readonly entries = new Map<string, { id: string; email: string; verified: boolean; until: number }>();
  constructor(
    private readonly ttlMs = 60_000,
    private readonly max = 10_000,
  ) {}

  get(claims: IdpClaims, now: number): string | null {
    const e = this.entries.get(claims.uid);
    return e && e.until > now && e.email === claims.email && e.verified === claims.emailVerified ? e.id : null;
  }

  set(claims: IdpClaims, id: string, now: number): void {
    this.entries.delete(claims.uid);
    this.entries.set(claims.uid, { id, email: claims.email, verified: claims.emailVerified, until: now + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** Builds the authenticator of the configured backend; throws on an unusable key setting (start-up stops). */
export function createAuthenticator({ config, sql, log, now = systemClock }: AuthenticatorDeps): Authenticator {
  const backend = config.AUTH_BACKEND;
  const secret = config.SECRET_KEY;
  const idp = backend === "jwt" ? createIdpVerifier(config) : null;
  const recent = new RecentProviderUsers();
  const passwordTokens = new VerifiedTokens((token, at) => verifyPasswordToken(secret, token, at));

  const verifyToken = async (token: string): Promise<Caller> => {
    switch (backend) {
      case "none":
        return ANONYMOUS;
      case "password": {
        const claims = await passwordTokens.check(token, now());
        if (!claims) throw Unauthorized(INVALID);
        return { userId: claims.sub, email: claims.email, via: "bearer" };
      }
      case "jwt": {
        const result = await idp!.verify(token, now());
        if (!result.ok) {
          if (result.unavailable) {
            log.error({ reason: result.reason }, "identity provider keys unavailable");
            throw Unavailable("Identity provider unavailable");
          }
          log.info({ reason: result.reason }, "bearer token refused");
          throw Unauthorized(INVALID);
        }
        const t = now();
        let userId = recent.get(result.claims, t.getTime());
        if (userId === null) {
          userId = (await upsertProviderUser(sql, result.claims, t)).id;
          recent.set(result.claims, userId, t.getTime());
        }
        return { userId, email: result.claims.email, via: "bearer" };
      }
    }
  };

  const byApiKey = async (key: string): Promise<Caller | null> => {
    if (key.length > MAX_API_KEY_LENGTH) return null;
    const userId = await apiKeyOwner(sql, hashApiKey(secret, key));
    // API-key callers carry no e-mail (reference); /v1/me reads it from the user row when there is one.
    return userId === null ? null : { userId, email: null, via: "api_key" };
  };

  return {
    backend,
    verifyToken,
    async resolve({ authorization, apiKey }) {
      if (backend === "none") return ANONYMOUS;
      const token = bearerToken(authorization);
      const [byToken, byKey] = await Promise.all([token ? verifyToken(token) : null, apiKey ? byApiKey(apiKey) : null]);
      if (byToken && byKey && byToken.userId !== byKey.userId) throw Unauthorized(`${INVALID}: more than one user provided`);
      return byToken ?? byKey ?? ANONYMOUS;
    },
    async verifyLinkToken(token, audioOf) {
      // Not a bearer token of this backend: maybe a media token. A provider outage stays a 503.
      const asBearer = await verifyToken(token).catch((e: unknown) => {
        if (isAppError(e) && e.kind === "unauthorized") return null;
        throw e;
      });
      if (asBearer && asBearer.userId !== null) return asBearer;
      const userId = audioOf === null ? null : await verifyMediaToken(secret, token, audioOf, now());
      if (userId === null) throw Unauthorized("Invalid or expired token");
      return { userId, email: null, via: "bearer" };
    },
    mintMediaToken: (scope) => mintMediaToken(secret, scope, { now: now(), ttlSeconds: config.MEDIA_TOKEN_TTL_SECONDS }),
  };
}
