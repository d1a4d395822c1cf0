// The meetings service's copy of the rooms against a real database: room events carry the full
// state and a version; an older state never overwrites a newer one, and a deleted room stays gone.
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { roomEventOf, type RoomEvent } from "@scribe/contracts";
import { sampleRoomState } from "@scribe/contracts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roomById, roomByName, roomCopy } from "../src/room-copy";

let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase("mtgrooms");
  sql = connectDb(db.url, { schema: "meetings", max: 2 });
  await migrate(sql, { schema: "meetings", migrations: serviceMigrations("meetings") });
});
afterAll(async () => {
  await sql?.end();
  await db?.drop();
});

const state = (version: number, patch: Partial<RoomEvent> = {}): RoomEvent => ({
  ...roomEventOf(sampleRoomState({ id: "room-1", name: "standup", user_id: "alice", version })),
  ...patch,
});

const now = new Date("2026-01-05T10:00:00Z");

describe("room copy", () => {
  it("applies newer states and ignores stale ones", async () => {
    expect(await sql.begin((tx) => roomCopy.apply(tx, state(1), false, now))).toBe(true);
    expect(await sql.begin((tx) => roomCopy.apply(tx, state(3, { name: "daily-standup", platform: "whereby" }), false, now))).toBe(true);
    expect(await sql.begin((tx) => roomCopy.apply(tx, state(2, { name: "stale" }), false, now))).toBe(false);
    expect(await roomById(sql, "room-1", now)).toMatchObject({ name: "daily-standup", platform: "whereby", version: 3 });
    expect(await roomByName(sql, "stale", now)).toBeNull();
  });

  it("keeps a deleted room deleted when an older update arrives late", async () => {
    expect(await sql.begin((tx) => roomCopy.apply(tx, state(4), true, now))).toBe(true);
    expect(await sql.begin((tx) => roomCopy.apply(tx, state(3), false, now))).toBe(false);
    expect(await roomById(sql, "room-1", now)).toBeNull();
    expect(await roomByName(sql, "standup", now)).toBeNull();
  });
});
