// AUTH_BACKEND=password end to end: the configured user logs in with POST /v1/auth/login (api.md
// §2.2), the token it gets works everywhere, and logins are rate-limited per client address.
import { createScribeClient, type Schemas, type ScribeClient } from "@scribe/client";
import { jwtVerify } from "jose";
import postgres from "postgres";
import { startProcess } from "@scribe/kit";
import { servicesByName } from "@scribe/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SECRET, startSystem, type TestSystem } from "./support/system";

// Made by the reference's primitive: python hashlib.pbkdf2_hmac('sha256', b'admin-pass', b'feedfacecafebeef', 1000).
const ADMIN_HASH = "pbkdf2:sha256:1000$feedfacecafebeef$4f6709c13dd5711fa65f1d151b403186d7389b61fe10e0e66d64a7d025155991";
const ADMIN = { email: "admin@example.com", password: "admin-pass" };
const WRONG = { detail: "Invalid email or password" };
const TOO_MANY = { detail: "Too many login attempts. Try again later." };

function login(api: TestSystem | ScribeClient, body: Schemas["LoginRequest"], headers: Record<string, string> = {}) {
  const client = "client" in api ? api.client(null) : api;
  return client.POST("/v1/auth/login", { body, headers });
}

describe("password login behind a trusted proxy", () => {
  let sys: TestSystem;
  let sql: postgres.Sql;
  // Each test logs in from its own address, so their attempts never share a bucket.
  const from = (address: string) => ({ "x-forwarded-for": address });

  beforeAll(async () => {
    sys = await startSystem({
      label: "pwlogin",
      auth: "password",
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD_HASH: ADMIN_HASH, TRUSTED_PROXIES: "127.0.0.1" },
    });
    sql = postgres(sys.db.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql.end();
    await sys.stop();
  });

  it("provisions the configured user at start-up as local:<email>, with the reference-format hash", async () => {
    const rows = await sql`select id, provider_uid, email, email_verified, password_hash from gateway.users`;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      provider_uid: `local:${ADMIN.email}`,
      email: ADMIN.email,
      email_verified: false,
      password_hash: ADMIN_HASH,
    });
  });

  it("answers a 24-hour HS256 bearer token for the right password", async () => {
    const res = await login(sys, ADMIN, from("198.51.100.1"));
    expect(res.response.status).toBe(200);
    const body = res.data!;
    expect(body).toEqual({ access_token: expect.any(String), token_type: "bearer", expires_in: 86_400 });
    const { payload, protectedHeader } = await jwtVerify(body.access_token, new TextEncoder().encode(TEST_SECRET));
    const [user] = await sql`select id from gateway.users where email = ${ADMIN.email}`;
    expect(protectedHeader.alg).toBe("HS256");
    expect(payload).toMatchObject({ sub: user!.id, email: ADMIN.email });
    expect(payload.exp! - Math.floor(Date.now() / 1000)).toBeGreaterThan(86_400 - 60);
  });

  it("makes the token work on the API as that user", async () => {
    const { access_token } = (await login(sys, ADMIN, from("198.51.100.2"))).data!;
    const as = sys.clientWith({ token: access_token });
    const me = (await as.GET("/v1/me")).data;
    const [user] = await sql`select id from gateway.users where email = ${ADMIN.email}`;
    expect(me).toEqual({ sub: user!.id, email: ADMIN.email, email_verified: false });
    const room = (await as.POST("/v1/rooms", { body: { name: "admins-room" } })).data!;
    expect(room.user_id).toBe(user!.id);
  });

  it("answers the same 401 for a wrong password and an unknown e-mail", async () => {
    const wrong = await login(sys, { ...ADMIN, password: "nope" }, from("198.51.100.3"));
    expect(wrong.response.status).toBe(401);
    expect(wrong.error).toEqual(WRONG);
    const unknown = await login(sys, { email: "nobody@example.com", password: "admin-pass" }, from("198.51.100.3"));
    expect(unknown.response.status).toBe(401);
    expect(unknown.error).toEqual(WRONG);
    // E-mail is matched exactly, as the reference does.
    expect((await login(sys, { ...ADMIN, email: "ADMIN@example.com" }, from("198.51.100.3"))).response.status).toBe(401);
  });

  it("ignores credentials sent along: a stale token does not turn a login into a 401", async () => {
    const res = await login(sys, ADMIN, { ...from("198.51.100.4"), authorization: "Bearer stale.expired.token", "x-api-key": "junk" });
    expect(res.response.status).toBe(200);
  });

  it("validates the body (422) without counting it as an attempt", async () => {
    const withoutPassword = { email: ADMIN.email } as Schemas["LoginRequest"];
    for (let i = 0; i < 12; i++) expect((await login(sys, withoutPassword, from("198.51.100.5"))).response.status).toBe(422);
    expect((await login(sys, ADMIN, from("198.51.100.5"))).response.status).toBe(200);
  });

  it("allows 10 attempts per address in 300 s, counting successes too; the 11th is a 429, other addresses go on", async () => {
    const a = from("203.0.113.10");
    for (let i = 0; i < 10; i++) {
      const res = await login(sys, i % 2 ? ADMIN : { ...ADMIN, password: `guess-${i}` }, a);
      expect(res.response.status).toBe(i % 2 ? 200 : 401);
    }
    const eleventh = await login(sys, ADMIN, a);
    expect(eleventh.response.status).toBe(429);
    expect(eleventh.error).toEqual(TOO_MANY);
    expect((await login(sys, ADMIN, from("203.0.113.11"))).response.status).toBe(200);
  });

  it("counts attempts on every gateway replica sharing the database against one limit", async () => {
    const secondGateway = await startProcess(servicesByName(["gateway"]), sys.env);
    try {
      const second = createScribeClient({ baseUrl: `http://127.0.0.1:${secondGateway.services[0]!.exports.port as number}` });
      const onSecond = () => login(second, { ...ADMIN, password: "guess" }, from("203.0.113.20"));
      for (let i = 0; i < 10; i++) {
        const res = i % 2 ? await onSecond() : await login(sys, { ...ADMIN, password: "guess" }, from("203.0.113.20"));
        expect(res.response.status, `attempt ${i + 1}`).toBe(401);
      }
      expect((await onSecond()).response.status).toBe(429);
      expect((await login(sys, ADMIN, from("203.0.113.20"))).response.status).toBe(429);
    } finally {
      await secondGateway.stop();
    }
  });
});

describe("password login straight from clients (no trusted proxy), with a plain ADMIN_PASSWORD", () => {
  let sys: TestSystem;
  let sql: postgres.Sql;

  beforeAll(async () => {
    sys = await startSystem({
      label: "pwplain",
      auth: "password",
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: "plain-start-up-password", LOGIN_RATE_LIMIT_ATTEMPTS: "3" },
    });
    sql = postgres(sys.db.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql.end();
    await sys.stop();
  });

  it("hashes the plain password at start-up and stores only the hash", async () => {
    const [row] = await sql`select password_hash from gateway.users where email = ${ADMIN.email}`;
    expect(row!.password_hash).toMatch(/^pbkdf2:sha256:100000\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(row!.password_hash).not.toContain("plain-start-up-password");
    expect((await login(sys, { email: ADMIN.email, password: "plain-start-up-password" })).response.status).toBe(200);
  });

  it("does not let a client escape the limit by inventing X-Forwarded-For addresses", async () => {
    // One attempt was used above; LOGIN_RATE_LIMIT_ATTEMPTS=3.
    expect((await login(sys, { ...ADMIN, password: "x" }, { "x-forwarded-for": "192.0.2.1" })).response.status).toBe(401);
    expect((await login(sys, { ...ADMIN, password: "x" }, { "x-forwarded-for": "192.0.2.2" })).response.status).toBe(401);
    const res = await login(sys, { email: ADMIN.email, password: "plain-start-up-password" }, { "x-forwarded-for": "192.0.2.3" });
    expect(res.response.status).toBe(429);
  });
});

describe("password mode without a configured user", () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem({ label: "pwnouser", auth: "password", services: ["gateway"] });
  });
  afterAll(async () => sys.stop());

  it("starts, and every login is a 401", async () => {
    expect((await login(sys, ADMIN)).response.status).toBe(401);
  });

  it("still accepts tokens signed with SECRET_KEY for users that have no row (sub is the user id)", async () => {
    const me = (await sys.client("zoe").GET("/v1/me")).data;
    expect(me).toEqual({ sub: "zoe", email: "zoe@example.com", email_verified: false });
  });
});

it("refuses to start with a malformed ADMIN_PASSWORD_HASH, without printing it", async () => {
  const attempt = startSystem({
    label: "pwbadhash",
    auth: "password",
    env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD_HASH: "s3cret-plaintext" },
  });
  await expect(attempt).rejects.toThrow(/ADMIN_PASSWORD_HASH/);
  await attempt.catch((e: Error) => expect(e.message).not.toContain("s3cret-plaintext"));
});
