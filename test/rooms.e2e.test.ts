// Rooms end to end through the gateway's HTTP API: what owners, other users and anonymous callers see.
// Reading, updating and deleting go through the typed client (@scribe/client), as the web app does;
// requests no typed client can send (wrong types, malformed JSON, odd headers) through raw fetch.
import { issuesOf, ok, type ScribeClient, type Schemas } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onRoom } from "./support/api";
import { startSystem, streamEvents, type Client, type TestSystem } from "./support/system";

let sys: TestSystem;
let raw: Record<"alice" | "anon", Client>;
const api: Record<"alice" | "bob" | "anon", ScribeClient> = {} as never;

beforeAll(async () => {
  sys = await startSystem({ label: "rooms" });
  raw = { alice: sys.as("alice"), anon: sys.as(null) };
  api.alice = sys.client("alice");
  api.bob = sys.client("bob");
  api.anon = sys.client(null);
});
afterAll(async () => sys.stop());

const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });
/** A body the contract refuses (a wrong value or a missing field), sent through the typed client all the same. */
const refusedBody = (body: Record<string, unknown>) => body as unknown as Schemas["CreateRoom"];

/** A create body as the reference web app sends it (every field present). */
function fullCreate(name: string, extra: Partial<Schemas["CreateRoom"]> = {}): Schemas["CreateRoom"] {
  return {
    name,
    zulip_auto_post: false,
    zulip_stream: "",
    zulip_topic: "",
    is_locked: false,
    room_mode: "normal",
    recording_type: "cloud",
    recording_trigger: "automatic-2nd-participant",
    is_shared: false,
    webhook_url: "",
    webhook_secret: "",
    platform: "whereby" as const,
    ...extra,
  };
}

const createRoom = (as: ScribeClient, body: Schemas["CreateRoom"]) => ok(as.POST("/v1/rooms", { body }));

describe("rooms API", () => {
  it("creates a room with the reference's full body and answers the Room without webhook fields", async () => {
    const res = await api.alice.POST("/v1/rooms", { body: fullCreate("standup", { webhook_url: "https://hooks.example.com/x" }) });
    expect(res.response.status).toBe(200);
    const room = res.data!;
    expect(room).toMatchObject({
      name: "standup",
      user_id: "alice",
      platform: "whereby" as const,
      room_mode: "normal",
      ics_fetch_interval: 300,
      ics_enabled: false,
      ics_url: null,
      skip_consent: false,
      store_video: false,
      email_transcript_to: null,
    });
    expect(room).not.toHaveProperty("webhook_url");
    expect(room).not.toHaveProperty("webhook_secret");
    expect(room.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("fills documented defaults for a minimal body; the platform defaults to daily", async () => {
    const room = await createRoom(api.alice, { name: "minimal" });
    expect(room).toMatchObject({
      platform: "daily",
      recording_type: "cloud",
      recording_trigger: "automatic-2nd-participant",
      is_shared: false,
      zulip_stream: "",
    });
  });

  it("generates a 43-character URL-safe webhook secret when a webhook URL comes without one", async () => {
    const room = await createRoom(api.alice, { name: "hooked", webhook_url: "https://hooks.example.com/a" });
    const details = await ok(api.alice.GET("/v1/rooms/{room_id}", onRoom(room.id)));
    expect(details.webhook_url).toBe("https://hooks.example.com/a");
    expect(details.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("keeps a given webhook secret", async () => {
    const room = await createRoom(api.alice, { name: "hooked-own", webhook_url: "https://h.example.com/b", webhook_secret: "s3cret" });
    expect((await ok(api.alice.GET("/v1/rooms/{room_id}", onRoom(room.id)))).webhook_secret).toBe("s3cret");
  });

  it("refuses a duplicate name with 400, never a 500, even when created concurrently", async () => {
    await createRoom(api.alice, { name: "taken" });
    const dup = await api.bob.POST("/v1/rooms", { body: { name: "taken" } });
    expect(dup.response.status).toBe(400);
    expect(dup.error).toEqual({ detail: "Room name is not unique" });

    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? api.alice : api.bob).POST("/v1/rooms", { body: { name: "race" } }).then((r) => r.response.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
  });

  it("answers 401 to an anonymous create, before looking at the body", async () => {
    // Raw: a body of the wrong type, which the typed client would not build.
    const res = await raw.anon("/v1/rooms", post({ name: 42 }));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: "Not authenticated" });
  });

  it("answers 401 to a token that does not verify, even on routes that allow anonymous callers", async () => {
    const room = await createRoom(api.alice, { name: "tokencheck", is_shared: true });
    const res = await sys.clientWith({ token: "not.a.token" }).GET("/v1/rooms/{room_id}", onRoom(room.id));
    expect(res.response.status).toBe(401);
    expect(res.error).toEqual({ detail: "Invalid authentication" });
  });

  it("validates input with a 422 naming the field", async () => {
    const create = (body: Record<string, unknown>) => api.alice.POST("/v1/rooms", { body: refusedBody(body) });
    const bad = await create({ name: "badmode", room_mode: "party" });
    expect(bad.response.status).toBe(422);
    expect(issuesOf(bad.error)[0]!.loc).toEqual(["body", "room_mode"]);

    const interval = await create({ name: "badinterval", ics_fetch_interval: 3601 });
    expect(interval.response.status).toBe(422);
    expect(issuesOf(interval.error)[0]!.loc).toEqual(["body", "ics_fetch_interval"]);

    const platform = await create({ name: "badplatform", platform: "zoom" });
    expect(platform.response.status).toBe(422);
    expect(issuesOf(platform.error)[0]!.loc).toEqual(["body", "platform"]);

    const missing = await create({});
    expect(missing.response.status).toBe(422);
    expect(issuesOf(missing.error)[0]!.loc).toEqual(["body", "name"]);

    // Raw: malformed JSON.
    const malformed = await raw.alice("/v1/rooms", { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(422);
  });

  describe("reading", () => {
    let privateRoom: { id: string };
    let sharedRoom: { id: string };
    const byName = (room_name: string) => ({ params: { path: { room_name } } });
    beforeAll(async () => {
      privateRoom = await createRoom(api.alice, { name: "alice-private", webhook_url: "https://h.example.com/p" });
      sharedRoom = await createRoom(api.alice, { name: "alice-shared", is_shared: true, webhook_url: "https://h.example.com/s" });
    });

    it("shows the owner the webhook fields", async () => {
      const room = await ok(api.alice.GET("/v1/rooms/{room_id}", onRoom(sharedRoom.id)));
      expect(room.webhook_url).toBe("https://h.example.com/s");
      expect(room.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it("lets another user read a shared room with the webhook fields hidden", async () => {
      const room = await ok(api.bob.GET("/v1/rooms/{room_id}", onRoom(sharedRoom.id)));
      expect(room.name).toBe("alice-shared");
      expect(room.webhook_url).toBeNull();
      expect(room.webhook_secret).toBeNull();
    });

    it("refuses other users and anonymous callers a room that is not shared (403), and unknown ids (404)", async () => {
      expect((await api.bob.GET("/v1/rooms/{room_id}", onRoom(privateRoom.id))).response.status).toBe(403);
      const refused = await api.anon.GET("/v1/rooms/{room_id}", onRoom(privateRoom.id));
      expect(refused.response.status).toBe(403);
      expect(refused.error).toEqual({ detail: "Room access denied" });
      const missing = await api.alice.GET("/v1/rooms/{room_id}", onRoom("00000000-0000-4000-8000-000000000000"));
      expect(missing.response.status).toBe(404);
      expect(missing.error).toEqual({ detail: "Room not found" });
    });

    it("lets anyone open a room by name, hiding the webhook from all but the owner", async () => {
      const asAnon = await ok(api.anon.GET("/v1/rooms/name/{room_name}", byName("alice-private")));
      expect(asAnon.id).toBe(privateRoom.id);
      expect(asAnon.webhook_url).toBeNull();
      expect(asAnon.webhook_secret).toBeNull();
      const asBob = await ok(api.bob.GET("/v1/rooms/name/{room_name}", byName("alice-private")));
      expect(asBob.webhook_secret).toBeNull();
      const asOwner = await ok(api.alice.GET("/v1/rooms/name/{room_name}", byName("alice-private")));
      expect(asOwner.webhook_url).toBe("https://h.example.com/p");
      expect((await api.anon.GET("/v1/rooms/name/{room_name}", byName("no-such-room"))).response.status).toBe(404);
    });

    it("lists own rooms and shared rooms, newest first, with webhooks hidden on others' rooms", async () => {
      const bobsRoom = await createRoom(api.bob, { name: "bob-own" });
      const page = await ok(api.bob.GET("/v1/rooms", { params: { query: { size: 100 } } }));
      const names = page.items.map((r) => r.name);
      expect(names).toContain("bob-own");
      expect(names).toContain("alice-shared");
      expect(names).toContain("tokencheck");
      expect(names).not.toContain("alice-private");
      for (const r of page.items.filter((r) => r.user_id !== "bob")) {
        expect(r.webhook_url).toBeNull();
        expect(r.webhook_secret).toBeNull();
      }
      expect(page.items[0]?.id).toBe(bobsRoom.id);
      const created = page.items.map((r) => r.created_at);
      expect([...created].sort().reverse()).toEqual(created);
    });

    it("paginates with page and size and counts pages", async () => {
      const list = (query: { page?: number; size?: number }) => api.alice.GET("/v1/rooms", { params: { query } });
      const all = await ok(list({ size: 100 }));
      const first = await ok(list({ page: 1, size: 2 }));
      const second = await ok(list({ page: 2, size: 2 }));
      expect(first).toMatchObject({ page: 1, size: 2, total: all.total, pages: Math.ceil(all.total / 2) });
      expect(first.items).toHaveLength(2);
      expect(second.items[0]?.id).toBe(all.items[2]?.id);
      expect((await list({ size: 101 })).response.status).toBe(422);
      expect((await list({ page: 0 })).response.status).toBe(422);
    });

    it("requires authentication to list rooms when not in public mode", async () => {
      expect((await api.anon.GET("/v1/rooms")).response.status).toBe(401);
    });
  });

  describe("updating and deleting", () => {
    const update = (as: ScribeClient, room_id: string, body: Schemas["UpdateRoom"]) =>
      as.PATCH("/v1/rooms/{room_id}", { params: { path: { room_id } }, body });

    it("applies only the keys sent, and only for the owner", async () => {
      const room = await createRoom(api.alice, { name: "to-update", zulip_stream: "general" });
      const updated = await ok(update(api.alice, room.id, { is_shared: true, ics_fetch_interval: 600 }));
      expect(updated).toMatchObject({ is_shared: true, ics_fetch_interval: 600, zulip_stream: "general", name: "to-update" });
      expect(updated).toHaveProperty("webhook_url");

      expect((await update(api.bob, room.id, { is_locked: true })).response.status).toBe(403);
      expect((await update(api.anon, room.id, { is_locked: true })).response.status).toBe(401);
      expect((await update(api.alice, "00000000-0000-4000-8000-000000000000", { is_locked: true })).response.status).toBe(404);
      expect((await update(api.alice, room.id, { recording_type: "tape" })).response.status).toBe(422);
    });

    it("refuses renaming onto a taken name with 400", async () => {
      await createRoom(api.alice, { name: "name-a" });
      const b = await createRoom(api.alice, { name: "name-b" });
      const { error, response } = await update(api.alice, b.id, { name: "name-a" });
      expect(response.status).toBe(400);
      expect(error).toEqual({ detail: "Room name is not unique" });
    });

    it("generates a webhook secret for a new webhook URL and keeps it when the same URL is sent again", async () => {
      const room = await createRoom(api.alice, { name: "rotating" });
      const first = await ok(update(api.alice, room.id, { webhook_url: "https://h.example.com/r" }));
      expect(first.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const again = await ok(update(api.alice, room.id, { webhook_url: "https://h.example.com/r" }));
      expect(again.webhook_secret).toBe(first.webhook_secret);
      const moved = await ok(update(api.alice, room.id, { webhook_url: "https://h.example.com/new" }));
      expect(moved.webhook_secret).not.toBe(first.webhook_secret);
    });

    it("deletes a room for its owner only", async () => {
      const room = await createRoom(api.alice, { name: "doomed" });
      const path = { params: { path: { room_id: room.id } } };
      expect((await api.bob.DELETE("/v1/rooms/{room_id}", path)).response.status).toBe(403);
      expect(await ok(api.alice.DELETE("/v1/rooms/{room_id}", path))).toEqual({ status: "ok" });
      expect((await api.alice.GET("/v1/rooms/{room_id}", path)).response.status).toBe(404);
      expect((await api.alice.DELETE("/v1/rooms/{room_id}", path)).response.status).toBe(404);
    });
  });

  describe("the reference web app's Add Room form", () => {
    it('creates a room with no feed from ics_url "" and the form\'s default interval of 5 (minutes)', async () => {
      const room = await ok(
        api.alice.POST("/v1/rooms", { body: { ...fullCreate("form-defaults"), ics_url: "", ics_fetch_interval: 5, ics_enabled: false } }),
      );
      expect(room).toMatchObject({ ics_url: null, ics_fetch_interval: 300, ics_enabled: false });
    });

    it("reads the intervals the form offers (1, 5, 10, 30, 60) as minutes and larger numbers as seconds, on create and update", async () => {
      for (const [minutes, i] of [1, 5, 10, 30, 60].map((m, i) => [m, i] as const)) {
        const room = await ok(api.alice.POST("/v1/rooms", { body: { name: `interval-${i}`, ics_fetch_interval: minutes } }));
        expect(room.ics_fetch_interval).toBe(minutes * 60);
      }
      const seconds = await ok(api.alice.POST("/v1/rooms", { body: { name: "interval-seconds", ics_fetch_interval: 900 } }));
      expect(seconds.ics_fetch_interval).toBe(900);
      const path = { params: { path: { room_id: seconds.id } } };
      expect((await ok(api.alice.PATCH("/v1/rooms/{room_id}", { ...path, body: { ics_fetch_interval: 10 } }))).ics_fetch_interval).toBe(
        600,
      );
      expect((await ok(api.alice.PATCH("/v1/rooms/{room_id}", { ...path, body: { ics_fetch_interval: 120 } }))).ics_fetch_interval).toBe(
        120,
      );
      for (const bad of [0, -5, 3601]) {
        const refused = await api.alice.PATCH("/v1/rooms/{room_id}", { ...path, body: { ics_fetch_interval: bad } });
        expect(refused.response.status).toBe(422);
        expect(issuesOf(refused.error)[0]?.loc).toEqual(["body", "ics_fetch_interval"]);
      }
    });

    it("still refuses an ICS URL that is not one", async () => {
      const refused = await api.alice.POST("/v1/rooms", { body: { name: "bad-feed", ics_url: "not a url" } });
      expect(refused.response.status).toBe(422);
      expect(issuesOf(refused.error)[0]?.loc.slice(0, 2)).toEqual(["body", "ics_url"]);
    });
  });

  it("emits room.created, room.updated and room.deleted once each, carrying the room state without its webhook secret", async () => {
    const room = await createRoom(api.alice, { name: "evented", webhook_url: "https://h.example.com/e" });
    await ok(api.alice.PATCH("/v1/rooms/{room_id}", { ...onRoom(room.id), body: { is_locked: true } }));
    await ok(api.alice.DELETE("/v1/rooms/{room_id}", onRoom(room.id)));
    const events = await eventually(async () => {
      const evs = (await streamEvents(sys.prefix, "ROOMS")).filter((e) => e.subject === room.id);
      return evs.length >= 3 ? evs : null;
    });
    expect(events.map((e) => e.type)).toEqual(["room.created", "room.updated", "room.deleted"]);
    expect(events.map((e) => e.data.version)).toEqual([1, 2, 3]);
    expect(events[1]!.data).toMatchObject({ name: "evented", is_locked: true, webhook_url: "https://h.example.com/e" });
    expect(events[0]!.data).not.toHaveProperty("webhook_secret");
    expect(events[0]!.data.has_webhook_secret).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  it("echoes a request id and documents the API with the contract's component names", async () => {
    // Raw: a request header echoed, the OpenAPI document and the docs page are the wire itself.
    const res = await raw.anon("/health", { headers: { "x-request-id": "req-123" } });
    expect(res.headers.get("x-request-id")).toBe("req-123");
    const doc = await (await raw.anon("/openapi.json")).json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const name of [
      "Room",
      "RoomDetails",
      "CreateRoom",
      "UpdateRoom",
      "Page_RoomDetails_",
      "DeletionStatus",
      "HTTPValidationError",
      "ValidationError",
    ]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
    expect(doc.paths["/v1/rooms"].get.operationId).toBe("v1_rooms_list");
    expect(doc.paths["/v1/rooms/name/{room_name}"].get.operationId).toBe("v1_rooms_get_by_name");
    const docs = await raw.anon("/docs");
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("swagger-ui");
  });
});
