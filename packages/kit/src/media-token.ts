// Internal short-lived tokens for audio links (`…/audio/mp3?token=`, behaviour §6.10): HS256 with
// SECRET_KEY, `{sub: user id, tid: transcript id, aud, exp}`: one transcript's audio, nothing else. Here rather than in the gateway so the service that builds
// a transcript's audio link can mint one, and the gateway can verify it.
import { SignJWT, jwtVerify } from "jose";
import { hs256Key } from "./hs256-key";

/**
 * The audience marks the token as a link token: the password backend refuses bearer tokens that carry
 * an audience, so a leaked audio link cannot be replayed as a 15-minute session for the whole API
 * (the reference's `{sub, exp}` link tokens can).
 */
export const MEDIA_TOKEN_AUDIENCE = "scribe:media";
export const DEFAULT_MEDIA_TOKEN_TTL_SECONDS = 900;

/** What a media token opens: one transcript's audio, for the user it was minted for. */
export interface MediaTokenScope {
  userId: string;
  transcriptId: string;
}

export async function mintMediaToken(secret: string, scope: MediaTokenScope, opts: { now: Date; ttlSeconds?: number }): Promise<string> {
  const now = Math.floor(opts.now.getTime() / 1000);
  return new SignJWT({ tid: scope.transcriptId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(scope.userId)
    .setAudience(MEDIA_TOKEN_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.ttlSeconds ?? DEFAULT_MEDIA_TOKEN_TTL_SECONDS))
    .sign(await hs256Key(secret));
}

/**
 * The user id the token was minted for, or null when it is not a valid, unexpired media token for
 * the audio of `transcriptId` (a token for another transcript, or one without a transcript, opens nothing).
 */
export async function verifyMediaToken(secret: string, token: string, transcriptId: string, now: Date): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, await hs256Key(secret), {
      algorithms: ["HS256"],
      audience: MEDIA_TOKEN_AUDIENCE,
      requiredClaims: ["sub", "exp", "tid"],
      currentDate: now,
    });
    if (payload.tid !== transcriptId) return null;
    return typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : null;
  } catch {
    return null;
  }
}
