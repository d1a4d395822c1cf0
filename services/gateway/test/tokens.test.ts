// Where tokens travel, password-mode tokens and the internal media (audio-link) tokens.
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  bearerToken,
  mintMediaToken,
  signPasswordToken,
  verifyMediaToken,
  verifyPasswordToken,
  webSocketBearerToken,
} from "../src/auth/tokens";
import { generateApiKey, hashApiKey } from "../src/auth/api-keys";
import { VerifiedTokens } from "../src/auth/verified-tokens";

const SECRET = "unit-test-secret-0123456789";
const now = new Date("2026-01-01T12:00:00Z");
const later = (s: number) => new Date(now.getTime() + s * 1000);

describe("bearer credentials", () => {
  it("reads Authorization: Bearer <token> with any scheme case, and nothing else", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc  ")).toBe("abc");
    expect(bearerToken("BEARER abc")).toBe("abc");
    expect(bearerToken("Basic dXNlcjpwdw==")).toBeNull();
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken("Bearer    ")).toBeNull();
    expect(bearerToken("abc")).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
    // Everything after the scheme is the token: a token with spaces simply fails verification.
    expect(bearerToken("Bearer a b")).toBe("a b");
  });

  it("reads the WebSocket subprotocol form `bearer, <token>`", () => {
    expect(webSocketBearerToken("bearer, abc")).toBe("abc");
    expect(webSocketBearerToken("Bearer,abc")).toBe("abc");
    expect(webSocketBearerToken("bearer")).toBeNull();
    expect(webSocketBearerToken("chat, abc")).toBeNull();
    expect(webSocketBearerToken(undefined)).toBeNull();
  });
});

describe("password-mode tokens", () => {
  it("round-trip sub and email until they expire", async () => {
    const token = await signPasswordToken(SECRET, { sub: "u1", email: "a@b.c" }, { now, ttlSeconds: 86_400 });
    expect(await verifyPasswordToken(SECRET, token, later(60))).toEqual({ sub: "u1", email: "a@b.c", exp: now.getTime() / 1000 + 86_400 });
    expect(await verifyPasswordToken(SECRET, token, later(86_401))).toBeNull();
  });

  it("refuse another secret, garbage and tokens without sub or exp", async () => {
    const token = await signPasswordToken(SECRET, { sub: "u1", email: null }, { now, ttlSeconds: 60 });
    expect(await verifyPasswordToken("another-secret-0123456789", token, now)).toBeNull();
    expect(await verifyPasswordToken(SECRET, "not.a.token", now)).toBeNull();
    const key = new TextEncoder().encode(SECRET);
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("u1").sign(key);
    expect(await verifyPasswordToken(SECRET, noExp, now)).toBeNull();
    const noSub = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h").sign(key);
    expect(await verifyPasswordToken(SECRET, noSub, new Date())).toBeNull();
  });

  it("refuse a media token, so a leaked audio link is no session for the whole API", async () => {
    const media = await mintMediaToken(SECRET, { userId: "u1", transcriptId: "t1" }, { now });
    expect(await verifyPasswordToken(SECRET, media, later(1))).toBeNull();
  });
});

describe("media tokens", () => {
  const scope = { userId: "owner-1", transcriptId: "t-1" };
  it("carry the user id for 15 minutes by default", async () => {
    const token = await mintMediaToken(SECRET, scope, { now });
    expect(await verifyMediaToken(SECRET, token, "t-1", later(899))).toBe("owner-1");
    expect(await verifyMediaToken(SECRET, token, "t-1", later(901))).toBeNull();
  });

  it("open the audio of their own transcript only", async () => {
    const token = await mintMediaToken(SECRET, scope, { now });
    expect(await verifyMediaToken(SECRET, token, "t-2", now)).toBeNull();
    // A user-wide token of the old shape (no transcript) opens nothing.
    const userWide = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("owner-1")
      .setAudience("scribe:media")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(SECRET));
    expect(await verifyMediaToken(SECRET, userWide, "t-1", new Date())).toBeNull();
  });

  it("refuse other secrets and login tokens", async () => {
    const token = await mintMediaToken(SECRET, scope, { now, ttlSeconds: 60 });
    expect(await verifyMediaToken("another-secret-0123456789", token, "t-1", now)).toBeNull();
    const login = await signPasswordToken(SECRET, { sub: "u1", email: null }, { now, ttlSeconds: 60 });
    expect(await verifyMediaToken(SECRET, login, "t-1", now)).toBeNull();
  });
});

describe("API keys", () => {
  it("are 64 URL-safe characters, different each time", () => {
    const a = generateApiKey();
    expect(a).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(generateApiKey()).not.toBe(a);
  });

  it("are stored as a deterministic keyed hash that is not the key", () => {
    const key = generateApiKey();
    const hash = hashApiKey(SECRET, key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(SECRET, key)).toBe(hash);
    expect(hashApiKey("another-secret-0123456789", key)).not.toBe(hash);
  });
});

describe("verified password tokens, kept until they expire", () => {
  /** The cache over the real verification, counting how often it verifies. */
  function counted(max?: number) {
    const calls: string[] = [];
    const tokens = new VerifiedTokens((token, at) => {
      calls.push(token);
      return verifyPasswordToken(SECRET, token, at);
    }, max);
    return { tokens, calls };
  }
  const signed = (sub: string, ttlSeconds = 60) => signPasswordToken(SECRET, { sub, email: null }, { now, ttlSeconds });

  it("verifies a token once and answers it from memory until its exp, then refuses it as verification does", async () => {
    const { tokens, calls } = counted();
    const token = await signed("u1");
    expect(await tokens.check(token, now)).toMatchObject({ sub: "u1" });
    expect(await tokens.check(token, later(59))).toMatchObject({ sub: "u1" });
    expect(calls).toHaveLength(1);
    // At exp jose refuses it; so does the cache, and it asks the verification again.
    expect(await verifyPasswordToken(SECRET, token, later(60))).toBeNull();
    expect(await tokens.check(token, later(60))).toBeNull();
    expect(calls).toHaveLength(2);
  });

  it("keeps no refusal: a bad token is verified (and refused) every time", async () => {
    const { tokens, calls } = counted();
    const foreign = await signPasswordToken("another-secret-0123456789", { sub: "u1", email: null }, { now, ttlSeconds: 60 });
    expect(await tokens.check(foreign, now)).toBeNull();
    expect(await tokens.check(foreign, now)).toBeNull();
    expect(calls).toHaveLength(2);
  });

  it("holds at most its bound, forgetting the oldest token first", async () => {
    const { tokens, calls } = counted(2);
    const [a, b, c] = [await signed("a"), await signed("b"), await signed("c")];
    for (const t of [a, b, c]) await tokens.check(t, now);
    calls.length = 0;
    await tokens.check(c, now);
    await tokens.check(b, now);
    expect(calls).toEqual([]);
    expect(await tokens.check(a, now)).toMatchObject({ sub: "a" });
    expect(calls).toEqual([a]);
  });
});
