// Rooms end to end through the gateway's HTTP API: what owners, other users and anonymous callers see.
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, streamEvents, type Client, type TestSystem } from "./support/system";

let sys: TestSystem;
let alice: Client;
let bob: Client;
let anon: Client;

beforeAll(async () => {
  sys = await startSystem({ label: "rooms" });
  alice = sys.as("alice");
  bob = sys.as("bob");
  anon = sys.as(null);
});
afterAll(async () => sys.stop());

const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });
const patch = (body: unknown): RequestInit => ({ method: "PATCH", body: JSON.stringify(body) });

/** A create body as the reference web app sends it (every field present). */
function fullCreate(name: string, extra: Record<string, unknown> = {}) {
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
    platform: "whereby",
    ...extra,
  };
}

async function createRoom(as: Client, body: Record<string, unknown>) {
  const res = await as("/v1/rooms", post(body));
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown> & { id: string };
}

describe("rooms API", () => {
  it("creates a room with the reference's full body and answers the Room without webhook fields", async () => {
    const res = await alice("/v1/rooms", post(fullCreate("standup", { webhook_url: "https://hooks.example.com/x" })));
    expect(res.status).toBe(200);
    const room = await res.json();
    expect(room).toMatchObject({
      name: "standup",
      user_id: "alice",
      platform: "whereby",
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
    const room = await createRoom(alice, { name: "minimal" });
    expect(room).toMatchObject({
      platform: "daily",
      recording_type: "cloud",
      recording_trigger: "automatic-2nd-participant",
      is_shared: false,
      zulip_stream: "",
    });
  });

  it("generates a 43-character URL-safe webhook secret when a webhook URL comes without one", async () => {
    const room = await createRoom(alice, { name: "hooked", webhook_url: "https://hooks.example.com/a" });
    const details = await (await alice(`/v1/rooms/${room.id}`)).json();
    expect(details.webhook_url).toBe("https://hooks.example.com/a");
    expect(details.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("keeps a given webhook secret", async () => {
    const room = await createRoom(alice, { name: "hooked-own", webhook_url: "https://h.example.com/b", webhook_secret: "s3cret" });
    expect((await (await alice(`/v1/rooms/${room.id}`)).json()).webhook_secret).toBe("s3cret");
  });

  it("refuses a duplicate name with 400, never a 500, even when created concurrently", async () => {
    await createRoom(alice, { name: "taken" });
    const dup = await bob("/v1/rooms", post({ name: "taken" }));
    expect(dup.status).toBe(400);
    expect(await dup.json()).toEqual({ detail: "Room name is not unique" });

    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? alice : bob)("/v1/rooms", post({ name: "race" })).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
  });

  it("answers 401 to an anonymous create, before looking at the body", async () => {
    const res = await anon("/v1/rooms", post({ name: 42 }));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: "Not authenticated" });
  });

  it("answers 401 to a token that does not verify, even on routes that allow anonymous callers", async () => {
    const room = await createRoom(alice, { name: "tokencheck", is_shared: true });
    const res = await fetch(`${sys.baseUrl}/v1/rooms/${room.id}`, { headers: { authorization: "Bearer not.a.token" } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: "Invalid authentication" });
  });

  it("validates input with a 422 naming the field", async () => {
    const bad = await alice("/v1/rooms", post({ name: "badmode", room_mode: "party" }));
    expect(bad.status).toBe(422);
    const body = await bad.json();
    expect(body.detail[0].loc).toEqual(["body", "room_mode"]);

    const interval = await alice("/v1/rooms", post({ name: "badinterval", ics_fetch_interval: 30 }));
    expect(interval.status).toBe(422);
    expect((await interval.json()).detail[0].loc).toEqual(["body", "ics_fetch_interval"]);

    const platform = await alice("/v1/rooms", post({ name: "badplatform", platform: "zoom" }));
    expect(platform.status).toBe(422);
    expect((await platform.json()).detail[0].loc).toEqual(["body", "platform"]);

    const missing = await alice("/v1/rooms", post({}));
    expect(missing.status).toBe(422);
    expect((await missing.json()).detail[0].loc).toEqual(["body", "name"]);

    const malformed = await alice("/v1/rooms", { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(422);
  });

  describe("reading", () => {
    let privateRoom: { id: string };
    let sharedRoom: { id: string };
    beforeAll(async () => {
      privateRoom = await createRoom(alice, { name: "alice-private", webhook_url: "https://h.example.com/p" });
      sharedRoom = await createRoom(alice, { name: "alice-shared", is_shared: true, webhook_url: "https://h.example.com/s" });
    });

    it("shows the owner the webhook fields", async () => {
      const room = await (await alice(`/v1/rooms/${sharedRoom.id}`)).json();
      expect(room.webhook_url).toBe("https://h.example.com/s");
      expect(room.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it("lets another user read a shared room with the webhook fields hidden", async () => {
      const res = await bob(`/v1/rooms/${sharedRoom.id}`);
      expect(res.status).toBe(200);
      const room = await res.json();
      expect(room.name).toBe("alice-shared");
      expect(room.webhook_url).toBeNull();
      expect(room.webhook_secret).toBeNull();
    });

    it("refuses other users and anonymous callers a room that is not shared (403), and unknown ids (404)", async () => {
      expect((await bob(`/v1/rooms/${privateRoom.id}`)).status).toBe(403);
      const res = await anon(`/v1/rooms/${privateRoom.id}`);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ detail: "Room access denied" });
      const missing = await alice("/v1/rooms/00000000-0000-4000-8000-000000000000");
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ detail: "Room not found" });
    });

    it("lets anyone open a room by name, hiding the webhook from all but the owner", async () => {
      const asAnon = await (await anon("/v1/rooms/name/alice-private")).json();
      expect(asAnon.id).toBe(privateRoom.id);
      expect(asAnon.webhook_url).toBeNull();
      expect(asAnon.webhook_secret).toBeNull();
      const asBob = await (await bob("/v1/rooms/name/alice-private")).json();
      expect(asBob.webhook_secret).toBeNull();
      const asOwner = await (await alice("/v1/rooms/name/alice-private")).json();
      expect(asOwner.webhook_url).toBe("https://h.example.com/p");
      expect((await anon("/v1/rooms/name/no-such-room")).status).toBe(404);
    });

    it("lists own rooms and shared rooms, newest first, with webhooks hidden on others' rooms", async () => {
      const bobsRoom = await createRoom(bob, { name: "bob-own" });
      const page = await (await bob("/v1/rooms?size=100")).json();
      const names = page.items.map((r: { name: string }) => r.name);
      expect(names).toContain("bob-own");
      expect(names).toContain("alice-shared");
      expect(names).toContain("tokencheck");
      expect(names).not.toContain("alice-private");
      for (const r of page.items.filter((r: { user_id: string }) => r.user_id !== "bob")) {
        expect(r.webhook_url).toBeNull();
        expect(r.webhook_secret).toBeNull();
      }
      expect(page.items[0].id).toBe(bobsRoom.id);
      const created = page.items.map((r: { created_at: string }) => r.created_at);
      expect([...created].sort().reverse()).toEqual(created);
    });

    it("paginates with page and size and counts pages", async () => {
      const all = await (await alice("/v1/rooms?size=100")).json();
      const first = await (await alice("/v1/rooms?page=1&size=2")).json();
      const second = await (await alice("/v1/rooms?page=2&size=2")).json();
      expect(first).toMatchObject({ page: 1, size: 2, total: all.total, pages: Math.ceil(all.total / 2) });
      expect(first.items).toHaveLength(2);
      expect(second.items[0].id).toBe(all.items[2].id);
      expect((await alice("/v1/rooms?size=101")).status).toBe(422);
      expect((await alice("/v1/rooms?page=0")).status).toBe(422);
    });

    it("requires authentication to list rooms when not in public mode", async () => {
      const res = await anon("/v1/rooms");
      expect(res.status).toBe(401);
    });
  });

  describe("updating and deleting", () => {
    it("applies only the keys sent, and only for the owner", async () => {
      const room = await createRoom(alice, { name: "to-update", zulip_stream: "general" });
      const res = await alice(`/v1/rooms/${room.id}`, patch({ is_shared: true, ics_fetch_interval: 600 }));
      expect(res.status).toBe(200);
      const updated = await res.json();
      expect(updated).toMatchObject({ is_shared: true, ics_fetch_interval: 600, zulip_stream: "general", name: "to-update" });
      expect(updated).toHaveProperty("webhook_url");

      expect((await bob(`/v1/rooms/${room.id}`, patch({ is_locked: true }))).status).toBe(403);
      expect((await anon(`/v1/rooms/${room.id}`, patch({ is_locked: true }))).status).toBe(401);
      expect((await alice(`/v1/rooms/00000000-0000-4000-8000-000000000000`, patch({ is_locked: true }))).status).toBe(404);
      expect((await alice(`/v1/rooms/${room.id}`, patch({ recording_type: "tape" }))).status).toBe(422);
    });

    it("refuses renaming onto a taken name with 400", async () => {
      await createRoom(alice, { name: "name-a" });
      const b = await createRoom(alice, { name: "name-b" });
      const res = await alice(`/v1/rooms/${b.id}`, patch({ name: "name-a" }));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: "Room name is not unique" });
    });

    it("generates a webhook secret for a new webhook URL and keeps it when the same URL is sent again", async () => {
      const room = await createRoom(alice, { name: "rotating" });
      const first = await (await alice(`/v1/rooms/${room.id}`, patch({ webhook_url: "https://h.example.com/r" }))).json();
      expect(first.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const again = await (await alice(`/v1/rooms/${room.id}`, patch({ webhook_url: "https://h.example.com/r" }))).json();
      expect(again.webhook_secret).toBe(first.webhook_secret);
      const moved = await (await alice(`/v1/rooms/${room.id}`, patch({ webhook_url: "https://h.example.com/new" }))).json();
      expect(moved.webhook_secret).not.toBe(first.webhook_secret);
    });

    it("deletes a room for its owner only", async () => {
      const room = await createRoom(alice, { name: "doomed" });
      expect((await bob(`/v1/rooms/${room.id}`, { method: "DELETE" })).status).toBe(403);
      const res = await alice(`/v1/rooms/${room.id}`, { method: "DELETE" });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
      expect((await alice(`/v1/rooms/${room.id}`)).status).toBe(404);
      expect((await alice(`/v1/rooms/${room.id}`, { method: "DELETE" })).status).toBe(404);
    });
  });

  it("emits room.created, room.updated and room.deleted once each, carrying the full room state", async () => {
    const room = await createRoom(alice, { name: "evented", webhook_url: "https://h.example.com/e" });
    await alice(`/v1/rooms/${room.id}`, patch({ is_locked: true }));
    await alice(`/v1/rooms/${room.id}`, { method: "DELETE" });
    const events = await eventually(async () => {
      const evs = (await streamEvents(sys.prefix, "ROOMS")).filter((e) => e.subject === room.id);
      return evs.length >= 3 ? evs : null;
    });
    expect(events.map((e) => e.type)).toEqual(["room.created", "room.updated", "room.deleted"]);
    expect(events.map((e) => e.data.version)).toEqual([1, 2, 3]);
    expect(events[1]!.data).toMatchObject({ name: "evented", is_locked: true, webhook_url: "https://h.example.com/e" });
    expect(events[0]!.data.webhook_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  it("echoes a request id and documents the API with the contract's component names", async () => {
    const res = await anon("/health", { headers: { "x-request-id": "req-123" } });
    expect(res.headers.get("x-request-id")).toBe("req-123");
    const doc = await (await anon("/openapi.json")).json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const name of ["Room", "RoomDetails", "CreateRoom", "UpdateRoom", "Page_RoomDetails_", "DeletionStatus", "HTTPValidationError", "ValidationError"]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
    expect(doc.paths["/v1/rooms"].get.operationId).toBe("v1_rooms_list");
    expect(doc.paths["/v1/rooms/name/{room_name}"].get.operationId).toBe("v1_rooms_get_by_name");
    const docs = await anon("/docs");
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("swagger-ui");
  });
});
