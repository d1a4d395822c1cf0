// Identity-provider tokens (AUTH_BACKEND=jwt): signature against the provider's JWKS (cached; an
// unknown key id refetches it, so key rotation needs no restart) or a configured public key, then
// algorithm allow-list, expiry, issuer and audience. Only the claims Scribe uses are read.
import { X509Certificate, createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from "jose";
import { z } from "zod";
import { csv, type GatewayConfig } from "../config";

export interface IdpClaims {
  /** The provider's own user id (`sub`); the local user id is a different value. */
  uid: string;
  email: string;
  emailVerified: boolean;
}

export type IdpResult =
  | { ok: true; claims: IdpClaims }
  /** `unavailable`: the provider's keys could not be fetched, which is not the caller's fault. */
  | { ok: false; reason: string; unavailable: boolean };

export interface IdpVerifier {
  verify(token: string, now: Date): Promise<IdpResult>;
}

const Claims = z.object({
  sub: z.string().min(1),
  email: z.string().min(1),
  // Some providers send the flag as a string.
  email_verified: z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]).optional(),
});

/** Raised inside key resolution when the JWKS endpoint fails, to tell it apart from a bad token. */
class KeysUnavailable extends Error {}

/** PEM text (a `\n`-escaped one-liner from an env file works too) or the path of a PEM file. */
export function loadPublicKey(value: string): KeyObject {
  const text = value.includes("-----BEGIN") ? value : readFileSync(value, "utf8");
  const pem = text.includes("\n") ? text : text.replace(/\\n/g, "\n");
  return pem.includes("BEGIN CERTIFICATE") ? new X509Certificate(pem).publicKey : createPublicKey(pem);
}

function keySource(config: GatewayConfig): JWTVerifyGetKey | KeyObject {
  if (config.AUTH_JWT_PUBLIC_KEY) return loadPublicKey(config.AUTH_JWT_PUBLIC_KEY);
  const jwks = createRemoteJWKSet(new URL(config.AUTH_JWT_JWKS_URL!), {
    cacheMaxAge: config.AUTH_JWT_JWKS_CACHE_SECONDS * 1000,
    cooldownDuration: config.AUTH_JWT_JWKS_COOLDOWN_SECONDS * 1000,
    timeoutDuration: config.AUTH_JWT_JWKS_TIMEOUT_MS,
  });
  return async (header, token) => {
    try {
      return await jwks(header, token);
    } catch (e) {
      // No (or several) matching keys, or an algorithm the set cannot serve: the token's problem.
      if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWKSMultipleMatchingKeys || e instanceof errors.JOSENotSupported)
        throw e;
      // Timeouts, network errors, non-200 answers, a malformed set: the provider's problem.
      throw new KeysUnavailable((e as Error).message, { cause: e });
    }
  };
}

export function createIdpVerifier(config: GatewayConfig): IdpVerifier {
  const key = keySource(config);
  const algorithms = csv(config.AUTH_JWT_ALGORITHM);
  const audience = csv(config.AUTH_JWT_AUDIENCE);
  const issuer = config.AUTH_JWT_ISSUER;
  return {
    async verify(token, now) {
      try {
        const { payload } = await jwtVerify(token, key as JWTVerifyGetKey, {
          algorithms,
          ...(issuer ? { issuer } : {}),
          ...(audience.length ? { audience } : {}),
          requiredClaims: ["exp"],
          currentDate: now,
        });
        // As PyJWT in the reference: without a configured audience, a token meant for some audience
        // is not ours to accept.
        if (!audience.length && payload.aud !== undefined) {
          return { ok: false, reason: "token has an audience but AUTH_JWT_AUDIENCE is not set", unavailable: false };
        }
        const claims = Claims.safeParse(payload);
        if (!claims.success) {
          return {
            ok: false,
            reason: `claims: ${claims.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`,
            unavailable: false,
          };
        }
        return { ok: true, claims: { uid: claims.data.sub, email: claims.data.email, emailVerified: claims.data.email_verified ?? false } };
      } catch (e) {
        if (e instanceof KeysUnavailable) return { ok: false, reason: `JWKS: ${e.message}`, unavailable: true };
        const code = e instanceof errors.JOSEError ? e.code : "ERR_INVALID";
        return { ok: false, reason: `${code}: ${(e as Error).message}`, unavailable: false };
      }
    },
  };
}
