// The rooms service's own tests: its domain rules (services/rooms/src/domain/rooms.ts), pure, and its
// store (services/rooms/src/store.ts) on a real database.
import { CreateRoom, type Caller } from "@scribe/contracts";
import { connectDb, migrate, secretBox, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyUpdate, canRead, isOwner, newRoom } from "../src/domain/rooms";
import { insertRoom, listVisibleRooms, recordCalendarSync, roomById, roomByName, updateRoom } from "../src/store";

const now = new Date("2026-11-21T10:00:00Z");
const later = new Date("2026-11-21T11:00:00Z");
let secrets = 0;
const newSecret = () => `secret-${++secrets}`;
const room = (over: Record<string, unknown> = {}, id = "r1", owner = "alice") =>
  newRoom({ id, owner, body: CreateRoom.parse({ name: `room-${id}`, ...over }), defaultPlatform: "whereby", now, newSecret });
const user = (userId: string | null): Caller => ({ userId, email: null, via: userId ? "token" : "anonymous" }) as Caller;

describe("room rules", () => {
  it("creates version 1 with the body's values, the default platform unless one is given, and no calendar sync yet", () => {
    const r = room({ is_shared: true });
    expect(r).toMatchObject({
      version: 1,
      user_id: "alice",
      is_shared: true,
      platform: "whereby",
      ics_url: null,
      ics_last_sync: null,
      created_at: now.toISOString(),
    });
    expect(room({ platform: "daily" }).platform).toBe("daily");
  });
  it("gives a webhook URL without a secret a generated one, keeps a given secret, and none without a URL", () => {
    expect(room({ webhook_url: "https://hooks.example/x" }).webhook_secret).toMatch(/^secret-\d+$/);
    expect(room({ webhook_url: "https://hooks.example/x", webhook_secret: "mine" }).webhook_secret).toBe("mine");
    expect(room().webhook_secret).toBe("");
  });
  it("applies only keys present; null leaves a non-nullable column alone and clears a nullable one", () => {
    const r = { ...room(), email_transcript_to: "a@example.com" };
    const next = applyUpdate(r, { is_locked: true, name: null, email_transcript_to: null }, later, newSecret);
    expect(next).toMatchObject({ is_locked: true, name: r.name, email_transcript_to: null, version: 2, updated_at: later.toISOString() });
  });
  it("rotates the webhook secret only when the URL changes or the room has none", () => {
    const r = room({ webhook_url: "https://hooks.example/x" });
    expect(applyUpdate(r, { webhook_url: "https://hooks.example/x" }, later, newSecret).webhook_secret).toBe(r.webhook_secret);
    expect(applyUpdate(r, { webhook_url: "https://hooks.example/y" }, later, newSecret).webhook_secret).not.toBe(r.webhook_secret);
    expect(applyUpdate(room(), { webhook_url: "https://hooks.example/y" }, later, newSecret).webhook_secret).toMatch(/^secret-/);
  });
  it("owners read and change their rooms; others read shared rooms only; anonymous owns nothing", () => {
    const r = room();
    expect(isOwner(r, user("alice"))).toBe(true);
    expect(isOwner(r, user("bob"))).toBe(false);
    expect(isOwner({ user_id: null as unknown as string }, user(null))).toBe(false);
    expect(canRead(r, user("bob"))).toBe(false);
    expect(canRead({ ...r, is_shared: true }, user(null))).toBe(true);
  });
});

describe("room store", () => {
  let db: TestDatabase;
  let sql: Sql;
  const box = secretBox("k".repeat(48), "rooms-test");
  beforeAll(async () => {
    db = await createTestDatabase("rooms");
    sql = connectDb(db.url, { schema: "rooms", max: 2 });
    await migrate(sql, { schema: "rooms", migrations: serviceMigrations("rooms") });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  it("stores a room as given and seals its webhook secret at rest", async () => {
    const r = room({ webhook_url: "https://hooks.example/x", webhook_secret: "plain-secret" }, "s1");
    await insertRoom(sql, box, r);
    expect(await roomById(sql, box, "s1")).toEqual(r);
    expect(await roomByName(sql, box, r.name)).toEqual(r);
    const [raw] = await sql<{ webhook_secret: string }[]>`select webhook_secret from room where id = 's1'`;
    expect(raw!.webhook_secret).not.toContain("plain-secret");
    const next = applyUpdate(r, { is_shared: true }, later, newSecret);
    await updateRoom(sql, box, next);
    expect(await roomById(sql, box, "s1")).toEqual(next);
  });
  it("lists the caller's rooms and shared ones, anonymous only shared ones", async () => {
    await insertRoom(sql, box, room({}, "v-own", "carol"));
    await insertRoom(sql, box, room({ is_shared: true }, "v-shared", "dave"));
    await insertRoom(sql, box, room({}, "v-other", "dave"));
    const ids = async (u: string | null) =>
      (await listVisibleRooms(sql, box, u, { limit: 100, offset: 0 })).rooms
        .map((r) => r.id)
        .filter((id) => id.startsWith("v-"))
        .sort();
    expect(await ids("carol")).toEqual(["v-own", "v-shared"]);
    expect(await ids(null)).toEqual(["v-shared"]);
  });
  it("keeps the latest calendar sync when syncs arrive late or again", async () => {
    await insertRoom(sql, box, room({}, "c1"));
    await recordCalendarSync(sql, "c1", { syncedAt: later, etag: "new" });
    await recordCalendarSync(sql, "c1", { syncedAt: now, etag: "old" });
    expect(await roomById(sql, box, "c1")).toMatchObject({ ics_last_sync: later.toISOString(), ics_last_etag: "new" });
  });
});
