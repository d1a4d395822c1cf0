// Where tokens travel and the password backend's own tokens (HS256 with SECRET_KEY,
// `{sub: local user id, email, exp}`, behaviour §6.5). Identity-provider tokens are in ./jwt.ts.
import { hs256Key } from "@scribe/kit";
import { SignJWT, jwtVerify } from "jose";

export { MEDIA_TOKEN_AUDIENCE, mintMediaToken, verifyMediaToken } from "@scribe/kit";

/**
 * `Authorization: Bearer <token>`; the scheme is case-insensitive and any other scheme means no
 * token (reference). "Bearer" with nothing after it is no token either.
 */
export function bearerToken(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const value = authorization.trim();
  const space = value.search(/\s/);
  if (space < 0) return null;
  const scheme = value.slice(0, space);
  const token = value.slice(space).trim();
  return scheme.toLowerCase() === "bearer" && token !== "" ? token : null;
}

/**
 * WebSocket credentials: `Sec-WebSocket-Protocol: bearer, <token>` (first item literally `bearer`,
 * any case; the second the token). Null when the header does not carry a token that way.
 */
export function webSocketBearerToken(protocolHeader: string | undefined): string | null {
  if (!protocolHeader) return null;
  const [scheme, token] = protocolHeader.split(",").map((p) => p.trim());
  return scheme?.toLowerCase() === "bearer" && token ? token : null;
}

export async function signPasswordToken(
  secret: string,
  claims: { sub: string; email: string | null },
  opts: { now: Date; ttlSeconds: number },
): Promise<string> {
  const now = Math.floor(opts.now.getTime() / 1000);
  return new SignJWT({ email: claims.email })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setExpirationTime(now + opts.ttlSeconds)
    .sign(await hs256Key(secret));
}

/**
 * Signature and expiry only, no database lookup: `sub` is trusted as the user id (reference), so
 * tokens minted elsewhere with SECRET_KEY (tests, tools) work for users without a row. A token that
 * carries an audience was minted for something else (an audio link) and is refused.
 */
export async function verifyPasswordToken(
  secret: string,
  token: string,
  now: Date,
): Promise<{ sub: string; email: string | null; exp: number } | null> {
  try {
    const { payload } = await jwtVerify(token, await hs256Key(secret), {
      algorithms: ["HS256"],
      requiredClaims: ["sub", "exp"],
      currentDate: now,
    });
    if (payload.aud !== undefined || typeof payload.sub !== "string" || payload.sub === "") return null;
    return { sub: payload.sub, email: typeof payload.email === "string" ? payload.email : null, exp: payload.exp! };
  } catch {
    return null;
  }
}
