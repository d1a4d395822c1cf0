// AUTH_BACKEND=jwt end to end: identity-provider tokens verified against the provider's JWKS or a
// configured public key; tampered tokens refused; key rotation without restart; local user rows.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Schemas } from "@scribe/client";
import { SignJWT } from "jose";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgedWithPublicKey, startIdp, unsignedToken, type IdpSimulator } from "@scribe/simulators";
import { answer } from "./support/api";
import { TEST_SECRET, startSystem, type TestSystem } from "./support/system";

const INVALID = { detail: "Invalid authentication" };

/** GET /v1/me with this bearer token: the user it is, or the refusal's body. */
async function whoIs(sys: TestSystem, token: string) {
  const { status, body } = await answer(sys.clientWith({ token }).GET("/v1/me"));
  return { status, body: body as Partial<Schemas["UserInfo"]> & { detail?: string } };
}

describe("jwt with a JWKS URL", () => {
  let sys: TestSystem;
  let idp: IdpSimulator;
  let sql: postgres.Sql;
  const userRow = async (uid: string) =>
    (await sql`select id, email, email_verified, updated_at from gateway.users where provider_uid = ${uid}`)[0] ?? null;

  beforeAll(async () => {
    sys = await startSystem({ label: "jwtjwks", auth: "jwt" });
    idp = sys.idp!;
    sql = postgres(sys.db.url, { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql.end();
    await sys.stop();
  });

  it("creates the local user on the first valid token: the local id is a new UUID, the provider uid its own column", async () => {
    expect(await userRow("idp-carol")).toBeNull();
    const token = await idp.token({ sub: "idp-carol", email: "carol@example.com", email_verified: true });
    const me = await whoIs(sys, token);
    expect(me.status).toBe(200);
    const row = await userRow("idp-carol");
    expect(row).toMatchObject({ email: "carol@example.com", email_verified: true });
    expect(me.body).toEqual({ sub: row!.id, email: "carol@example.com", email_verified: true });
    expect(me.body.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(me.body.sub).not.toBe("idp-carol");
  });

  it("passes the local id to services: a room created with a provider token belongs to the local user", async () => {
    const token = await idp.token({ sub: "idp-dan", email: "dan@example.com" });
    const res = await sys.clientWith({ token }).POST("/v1/rooms", { body: { name: "dans-room" } });
    expect(res.response.status).toBe(200);
    expect(res.data!.user_id).toBe((await userRow("idp-dan"))!.id);
  });

  it("keeps email and email_verified current, writing only when they change", async () => {
    await whoIs(sys, await idp.token({ sub: "idp-erin", email: "erin@old.example.com" }));
    const first = await userRow("idp-erin");
    expect(first).toMatchObject({ email: "erin@old.example.com", email_verified: false });

    await whoIs(sys, await idp.token({ sub: "idp-erin", email: "erin@old.example.com" }));
    expect((await userRow("idp-erin"))!.updated_at).toEqual(first!.updated_at);

    // Some providers send the flag as a string.
    const me = await whoIs(sys, await idp.token({ sub: "idp-erin", email: "erin@new.example.com", email_verified: "true" }));
    expect(me.body).toEqual({ sub: first!.id, email: "erin@new.example.com", email_verified: true });
    const updated = await userRow("idp-erin");
    expect(updated).toMatchObject({ id: first!.id, email: "erin@new.example.com", email_verified: true });
    expect(updated!.updated_at.getTime()).toBeGreaterThan(first!.updated_at.getTime());
  });

  it("makes one user when a new user's first requests arrive together", async () => {
    const token = await idp.token({ sub: "idp-frank", email: "frank@example.com" });
    const answers = await Promise.all(Array.from({ length: 8 }, () => whoIs(sys, token)));
    expect(new Set(answers.map((a) => a.body.sub)).size).toBe(1);
    expect((await sql`select count(*)::int as n from gateway.users where provider_uid = 'idp-frank'`)[0]!.n).toBe(1);
  });

  describe("refuses tampered and unfit tokens with 401, on every route, creating no user", () => {
    const claims = { sub: "idp-mallory", email: "mallory@example.com" };
    const cases: [string, () => Promise<string>][] = [
      [
        "a bad signature (payload changed after signing)",
        async () => {
          const [h, , s] = (await idp.token(claims)).split(".");
          const payload = Buffer.from(
            JSON.stringify({ ...claims, sub: "idp-admin", iss: idp.issuer, aud: idp.audience, exp: 9_999_999_999 }),
          ).toString("base64url");
          return `${h}.${payload}.${s}`;
        },
      ],
      ["a signature by a key the provider does not publish, under a published key id", () => idp.token(claims, { foreignKey: true })],
      ["alg none", async () => unsignedToken({ ...claims, iss: idp.issuer, aud: idp.audience, exp: 9_999_999_999 })],
      [
        "HS256 keyed with the provider's public key",
        () => forgedWithPublicKey(idp.publicKeyPem(), { ...claims, iss: idp.issuer, aud: idp.audience }, idp.currentKid),
      ],
      ["a wrong issuer", () => idp.token(claims, { issuer: "https://evil.example.com" })],
      ["no issuer", () => idp.token(claims, { issuer: null })],
      ["a wrong audience", () => idp.token(claims, { audience: "another-client" })],
      ["no audience", () => idp.token(claims, { audience: null })],
      ["an expired token", () => idp.token(claims, { expiresIn: -60 })],
      ["no expiry", () => idp.token(claims, { exp: null })],
      ["an unknown key id", () => idp.token(claims, { kid: "no-such-kid" })],
      ["no email claim", () => idp.token({ sub: "idp-mallory" })],
      ["no sub claim", () => idp.token({ email: "mallory@example.com" })],
      [
        "a password-mode token (HS256 with SECRET_KEY)",
        () =>
          new SignJWT({ email: "mallory@example.com" })
            .setProtectedHeader({ alg: "HS256" })
            .setSubject("idp-mallory")
            .setIssuer(idp.issuer)
            .setAudience(idp.audience)
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode(TEST_SECRET)),
      ],
    ];
    for (const [what, make] of cases) {
      it(what, async () => {
        const token = await make();
        const api = sys.clientWith({ token });
        for (const res of [
          await api.GET("/v1/me"),
          await api.GET("/v1/rooms/name/{room_name}", { params: { path: { room_name: "anything" } } }),
          await api.GET("/v1/user/api-keys"),
        ]) {
          expect({ status: res.response.status, body: res.error }).toEqual({ status: 401, body: INVALID });
        }
        expect(await userRow("idp-mallory")).toBeNull();
        expect(await userRow("idp-admin")).toBeNull();
      });
    }
  });

  it("picks up a rotated key without restart, and stops accepting a key the provider withdrew", async () => {
    const before = await idp.token({ sub: "idp-gina", email: "gina@example.com" });
    expect((await whoIs(sys, before)).status).toBe(200);
    const fetches = idp.jwksFetches;

    const newKid = await idp.rotate({ dropOld: true });
    const after = await idp.token({ sub: "idp-gina", email: "gina@example.com" });
    expect(JSON.parse(Buffer.from(after.split(".")[0]!, "base64url").toString()).kid).toBe(newKid);
    const me = await whoIs(sys, after);
    expect(me.status).toBe(200);
    expect(idp.jwksFetches).toBe(fetches + 1);

    // The refetched set no longer has the old key.
    expect(await whoIs(sys, before)).toEqual({ status: 401, body: INVALID });
  });

  it("answers 503, not 401 or 500, when the provider's keys cannot be fetched", async () => {
    idp.failJwks = true;
    try {
      await idp.rotate();
      const res = await whoIs(sys, await idp.token({ sub: "idp-hank", email: "hank@example.com" }));
      expect(res).toEqual({ status: 503, body: { detail: "Identity provider unavailable" } });
    } finally {
      idp.failJwks = false;
    }
    expect((await whoIs(sys, await idp.token({ sub: "idp-hank", email: "hank@example.com" }))).status).toBe(200);
  });
});

describe("jwt with a configured public key", () => {
  let sys: TestSystem;
  let idp: IdpSimulator;
  const dir = mkdtempSync(join(tmpdir(), "scribe-jwt-"));

  beforeAll(async () => {
    idp = await startIdp({ alg: "ES256" });
    const file = join(dir, "idp.pem");
    writeFileSync(file, idp.publicKeyPem());
    sys = await startSystem({
      label: "jwtpem",
      auth: "jwt",
      idp,
      env: { AUTH_JWT_JWKS_URL: "", AUTH_JWT_PUBLIC_KEY: file, AUTH_JWT_ALGORITHM: "ES256" },
    });
  });
  afterAll(async () => {
    await sys.stop();
    await idp.close();
  });

  it("accepts the provider's tokens without ever fetching a JWKS", async () => {
    const me = await whoIs(sys, await idp.token({ sub: "pem-user", email: "pem@example.com" }));
    expect(me.status).toBe(200);
    expect(me.body.email).toBe("pem@example.com");
    expect(idp.jwksFetches).toBe(0);
  });

  it("refuses HS256 forged with the configured public key, alg none, and other keys", async () => {
    const claims = { sub: "pem-user", email: "pem@example.com", iss: idp.issuer, aud: idp.audience };
    for (const token of [
      await forgedWithPublicKey(idp.publicKeyPem(), claims),
      unsignedToken({ ...claims, exp: 9_999_999_999 }),
      await idp.token(claims, { foreignKey: true }),
    ]) {
      expect(await whoIs(sys, token)).toEqual({ status: 401, body: INVALID });
    }
  });

  it("refuses an algorithm outside the allow-list even when the key would verify it", async () => {
    const rsa = await startIdp({ alg: "RS256" });
    try {
      const token = await rsa.token({ sub: "x", email: "x@example.com" }, { issuer: idp.issuer, audience: idp.audience });
      expect((await whoIs(sys, token)).status).toBe(401);
    } finally {
      await rsa.close();
    }
  });

  it("stops start-up with a message naming the setting when the key file cannot be read", async () => {
    await expect(
      startSystem({ label: "jwtbadkey", auth: "jwt", idp, env: { AUTH_JWT_JWKS_URL: "", AUTH_JWT_PUBLIC_KEY: join(dir, "missing.pem") } }),
    ).rejects.toThrow(/AUTH_JWT_PUBLIC_KEY/);
  });
});
