// API keys end to end (api.md §2.3, behaviour §6.7): shown once, stored only as a keyed hash,
// sent in X-API-Key, the caller's own only, and a deleted key stops working at once.
import { createHmac } from "node:crypto";
import { ScribeApiError, issuesOf, ok, type ScribeClient } from "@scribe/client";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SECRET, startSystem, type TestSystem } from "./support/system";

let sys: TestSystem;
let sql: postgres.Sql;
let alice: ScribeClient;
let bob: ScribeClient;
const withKey = (key: string) => sys.clientWithApiKey(key);
const onKey = (id: string) => ({ params: { path: { key_id: id } } });

beforeAll(async () => {
  sys = await startSystem({ label: "apikeys" });
  sql = postgres(sys.db.url, { max: 1, onnotice: () => {} });
  alice = sys.client("alice");
  bob = sys.client("bob");
});
afterAll(async () => {
  await sql.end();
  await sys.stop();
});

describe("API keys", () => {
  it("authenticate the typed client (X-API-Key), which reports a refusal as a ScribeApiError", async () => {
    const { id, key } = await sys.createApiKey("alice", "typed");
    const api = sys.clientWithApiKey(key);
    expect(await ok(api.GET("/v1/me"))).toMatchObject({ sub: "alice", email: null });
    expect((await ok(api.GET("/v1/user/api-keys"))).map((k) => k.id)).toContain(id);
    await ok(api.DELETE("/v1/user/api-keys/{key_id}", { params: { path: { key_id: id } } }));
    const refused = await ok(api.GET("/v1/user/api-keys")).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ScribeApiError);
    expect(refused).toMatchObject({ status: 401, detail: expect.any(String) });
  });

  it("shows a new key once: 64 URL-safe characters with its id, owner, name and creation time", async () => {
    const res = await alice.POST("/v1/user/api-keys", { body: { name: "ci" } });
    expect(res.response.status).toBe(200);
    const created = res.data!;
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: "alice",
      name: "ci",
      created_at: expect.any(String),
      key: expect.stringMatching(/^[A-Za-z0-9_-]{64}$/),
    });
    const listed = await ok(alice.GET("/v1/user/api-keys"));
    expect(listed.find((k) => k.id === created.id)).toEqual({
      id: created.id,
      user_id: "alice",
      name: "ci",
      created_at: created.created_at,
    });
    expect(JSON.stringify(listed)).not.toContain(created.key);
  });

  it("stores only hex(HMAC-SHA256(SECRET_KEY, key)), never the key", async () => {
    const { id, key } = await sys.createApiKey("alice", "hashed");
    const [row] = await sql`select * from gateway.api_key where id = ${id}`;
    expect(row!.key_hash).toBe(createHmac("sha256", TEST_SECRET).update(key).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it("lists the caller's keys only, newest first; a name is optional, an empty one is a 422", async () => {
    const first = await sys.createApiKey("bob", null);
    const second = await sys.createApiKey("bob", "second");
    const fromEmptyBody = await ok(bob.POST("/v1/user/api-keys", { body: {} }));
    const keys = await ok(bob.GET("/v1/user/api-keys"));
    expect(keys.map((k) => k.id)).toEqual([fromEmptyBody.id, second.id, first.id]);
    expect(keys[2]!.name).toBeNull();
    expect(keys.every((k) => k.user_id === "bob")).toBe(true);
    const empty = await bob.POST("/v1/user/api-keys", { body: { name: "" } });
    expect(empty.response.status).toBe(422);
    expect(issuesOf(empty.error)[0]!.loc).toEqual(["body", "name"]);
  });

  it("authenticates as its user on every route, with no e-mail (reference)", async () => {
    const { key } = await sys.createApiKey("alice", "auth");
    expect((await withKey(key).GET("/v1/me")).data).toEqual({ sub: "alice", email: null, email_verified: false });
    const room = await ok(withKey(key).POST("/v1/rooms", { body: { name: "made-with-a-key" } }));
    expect(room.user_id).toBe("alice");
  });

  it("lets a key manage its user's keys", async () => {
    const { key } = await sys.createApiKey("alice", "manager");
    const made = await ok(withKey(key).POST("/v1/user/api-keys", { body: { name: "made by a key" } }));
    expect(made.user_id).toBe("alice");
    expect((await withKey(key).DELETE("/v1/user/api-keys/{key_id}", onKey(made.id))).response.status).toBe(200);
  });

  it("stops working the moment it is deleted", async () => {
    const { id, key } = await sys.createApiKey("alice", "short-lived");
    expect((await withKey(key).GET("/v1/me")).response.status).toBe(200);
    const res = await alice.DELETE("/v1/user/api-keys/{key_id}", onKey(id));
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ status: "ok" });
    expect((await withKey(key).GET("/v1/me")).data).toBeNull();
    expect((await withKey(key).POST("/v1/rooms", { body: { name: "too-late" } })).response.status).toBe(401);
    expect((await alice.DELETE("/v1/user/api-keys/{key_id}", onKey(id))).response.status).toBe(404);
  });

  it("cannot be deleted by another user (404, as for an unknown id) and keeps working", async () => {
    const { id, key } = await sys.createApiKey("alice", "not bob's");
    const res = await bob.DELETE("/v1/user/api-keys/{key_id}", onKey(id));
    expect(res.response.status).toBe(404);
    expect(res.error).toEqual({ detail: "Not Found" });
    const { key: bobsKey } = await sys.createApiKey("bob", "bob's");
    expect((await withKey(bobsKey).DELETE("/v1/user/api-keys/{key_id}", onKey(id))).response.status).toBe(404);
    expect((await withKey(key).GET("/v1/me")).response.status).toBe(200);
    expect((await alice.DELETE("/v1/user/api-keys/{key_id}", onKey("00000000-0000-4000-8000-000000000000"))).response.status).toBe(404);
  });

  it("ignores an unknown key: the caller stays anonymous (reference), 401 only where a user is needed", async () => {
    const unknown = withKey("A".repeat(64));
    expect((await unknown.GET("/v1/me")).data).toBeNull();
    expect((await unknown.GET("/v1/rooms/name/{room_name}", { params: { path: { room_name: "no-such-room" } } })).response.status).toBe(
      404,
    );
    const needsUser = await unknown.GET("/v1/user/api-keys");
    expect(needsUser.response.status).toBe(401);
    expect(needsUser.error).toEqual({ detail: "Not authenticated" });
  });

  it("accepts a key and a token of the same user, refuses two different users with 401", async () => {
    const { key } = await sys.createApiKey("alice", "both");
    const same = sys.clientWith({ apiKey: key, token: await sys.token("alice") });
    expect((await ok(same.GET("/v1/me")))?.sub).toBe("alice");
    const mixed = sys.clientWith({ apiKey: key, token: await sys.token("bob") });
    for (const res of [
      await mixed.GET("/v1/me"),
      await mixed.GET("/v1/rooms/name/{room_name}", { params: { path: { room_name: "x" } } }),
      await mixed.GET("/v1/user/api-keys"),
    ]) {
      expect(res.response.status).toBe(401);
      expect(res.error).toEqual({ detail: "Invalid authentication: more than one user provided" });
    }
    // An unknown key next to a valid token is simply ignored.
    const withUnknown = sys.clientWith({ apiKey: "nope", token: await sys.token("bob") });
    expect((await ok(withUnknown.GET("/v1/me")))?.sub).toBe("bob");
  });

  it("creates an unnamed key from a request without a body (curl -X POST)", async () => {
    // Raw: a request with no body at all, which the typed client never sends.
    const res = await sys.as("alice")("/v1/user/api-keys", { method: "POST" });
    expect(res.status).toBe(200);
    expect((await res.json()).name).toBeNull();
  });

  it("documents the identity operations with the contract's operation ids and component names", async () => {
    // Raw: the OpenAPI document itself is not one of the operations it describes.
    const doc = await (await sys.as(null)("/openapi.json")).json();
    for (const name of ["UserInfo", "ApiKeyResponse", "CreateApiKeyRequest", "CreateApiKeyResponse", "LoginRequest", "LoginResponse"]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
    expect(doc.components.schemas.UserInfo.required).toEqual(["sub", "email", "email_verified"]);
    expect(doc.paths["/v1/me"].get.operationId).toBe("v1_user_me");
    expect(doc.paths["/v1/me"].get.responses["200"].content["application/json"].schema).toEqual({
      anyOf: [{ $ref: "#/components/schemas/UserInfo" }, { type: "null" }],
    });
    expect(doc.paths["/v1/user/api-keys"].get.operationId).toBe("v1_list_api_keys");
    expect(doc.paths["/v1/user/api-keys"].post.operationId).toBe("v1_create_api_key");
    expect(doc.paths["/v1/user/api-keys/{key_id}"].delete.operationId).toBe("v1_delete_api_key");
    expect(doc.paths["/v1/auth/login"].post.operationId).toBe("v1_login");
  });
});
