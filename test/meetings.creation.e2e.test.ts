// Meeting creation in a room (issue 14 item 6): the platform is asked with no database transaction
// open (claim, act outside, record); creates arriving meanwhile wait for the claim and reuse the
// meeting; a burst larger than the service's database pool is served; a failed platform call or a
// replica that stopped mid-creation does not keep the room's creates waiting beyond a short lease,
// which a working holder renews however long the platform takes.
import { ok, ScribeApiError } from "@scribe/client";
import { connectDb, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { meetingCreationWaits } from "@scribe/meetings";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roomWithMeetings, startPlatformSystem, type PlatformSystem } from "./support/platforms";

const LEASE_MS = 1500;
let sys: PlatformSystem;
let db: Sql;

beforeAll(async () => {
  // A held room creation must not time out while the test looks at what the service holds; the
  // claim's lease is short, so holding the platform outlasts it several times over.
  sys = await startPlatformSystem({
    label: "mtgcreate",
    env: { PLATFORM_API_TIMEOUT_MS: "60000", MEETING_CREATION_LEASE_MS: String(LEASE_MS) },
  });
  // Named apart from the service's own sessions, which the tests look at in pg_stat_activity.
  db = connectDb(sys.db.url, { schema: "meetings", max: 2, applicationName: "meetings-creation-test" });
});
afterAll(async () => {
  await db?.end();
  await sys?.stop();
});

const create = (room: string, body: { allow_duplicated?: boolean } = {}) =>
  ok(sys.client("alice").POST("/v1/rooms/{room_name}/meeting", { params: { path: { room_name: room } }, body }));
const roomsCreated = () => sys.daily.calls.filter((c) => c.method === "POST" && c.path === "/rooms" && c.status === 200).length;
const waits = async () => (await meetingCreationWaits.get()).values[0]?.value ?? 0;
const claimOf = (roomId: string) => db<{ claim_token: string }[]>`select claim_token from meeting_creation where room_id = ${roomId}`;

describe("creating a meeting in a room", () => {
  it("asks the platform with no database transaction open; creates arriving meanwhile wait and reuse its meeting", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "held-create" });
    const createdBefore = roomsCreated();
    const waitsBefore = await waits();
    const held = sys.daily.holdNextRoomCreation();
    const first = create(room.name);
    // Awaited below; a broken service fails the checks before it settles.
    first.catch(() => {});
    await held.reached;
    let others: Promise<{ id: string }>[];
    try {
      // The room is claimed by a committed row while the platform answers...
      expect(await claimOf(room.id)).toHaveLength(1);
      // ...and none of the service's sessions sits in a transaction (an open one would stay "idle in
      // transaction" for as long as the platform is held, so this never comes true).
      await eventually(
        async () =>
          (
            await db`select 1 from pg_stat_activity where datname = current_database()
              and application_name = 'scribe-meetings' and state like 'idle in transaction%'`
          ).length === 0,
        { message: "a meetings session stays in a transaction while the platform is asked" },
      );
      others = [create(room.name), create(room.name), create(room.name)];
      await eventually(async () => (await waits()) - waitsBefore === 3, { message: "the other creates wait for the claim" });
    } finally {
      held.release();
    }
    const [a, ...rest] = await Promise.all([first, ...others]);
    expect(rest.map((m) => m.id)).toEqual([a!.id, a!.id, a!.id]);
    expect(roomsCreated()).toBe(createdBefore + 1);
    expect(await claimOf(room.id)).toEqual([]);
  });

  it("serves a burst of creates in one room larger than the service's database pool: one meeting, or one each when duplicates are asked for", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "burst" });
    // More creates than the default 10 pooled connections: a waiter must not hold one.
    const burst = 14;
    const createdBefore = roomsCreated();
    const reused = await Promise.all(Array.from({ length: burst }, () => create(room.name)));
    expect(new Set(reused.map((m) => m.id)).size).toBe(1);
    expect(roomsCreated()).toBe(createdBefore + 1);

    const duplicated = await Promise.all(Array.from({ length: burst }, () => create(room.name, { allow_duplicated: true })));
    expect(new Set(duplicated.map((m) => m.id)).size).toBe(burst);
    expect(roomsCreated()).toBe(createdBefore + 1 + burst);
  }, 180_000);

  it("releases the room's claim when the platform refuses the creation, so the next create goes ahead at once", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "refused-create" });
    const held = sys.daily.holdNextRoomCreation();
    const refused = create(room.name).catch((e: unknown) => e);
    await held.reached;
    held.release({ status: 500 });
    const error = await refused;
    // The platform's failure is passed on as "unavailable, try again".
    expect(error).toBeInstanceOf(ScribeApiError);
    expect((error as ScribeApiError).status).toBe(503);
    expect((error as ScribeApiError).message).toMatch(/Daily API error: create_room failed with status 500/);
    expect(await claimOf(room.id)).toEqual([]);
    const waitsBefore = await waits();
    await create(room.name);
    expect((await waits()) - waitsBefore).toBe(0);
  });

  it("renews its claim while the platform takes longer than the lease: a create arriving later still waits and reuses", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "slow-platform" });
    const createdBefore = roomsCreated();
    const held = sys.daily.holdNextRoomCreation();
    const first = create(room.name);
    first.catch(() => {});
    await held.reached;
    let later: Promise<{ id: string }>;
    try {
      const [claim] = await claimOf(room.id);
      // Three leases pass while the platform has not answered.
      await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
      expect(await claimOf(room.id)).toEqual([claim]);
      expect((await db`select 1 from meeting_creation where room_id = ${room.id} and lease_until > now()`).length).toBe(1);
      const waitsBefore = await waits();
      later = create(room.name);
      await eventually(async () => (await waits()) - waitsBefore === 1, { message: "the later create waits for the claim" });
    } finally {
      held.release();
    }
    const [a, b] = await Promise.all([first, later]);
    expect(b.id).toBe(a.id);
    expect(roomsCreated()).toBe(createdBefore + 1);
  });

  it("takes over a claim whose lease ran out (its replica stopped mid-creation)", async () => {
    const room = await roomWithMeetings(sys.client("alice"), { name: "stale-claim" });
    await db`insert into meeting_creation (room_id, claim_token, lease_until) values (${room.id}, 'stopped-replica', now() - interval '1 second')`;
    const createdBefore = roomsCreated();
    const meeting = await create(room.name);
    expect(meeting.room_name).toMatch(/^stale-claim-/);
    expect(roomsCreated()).toBe(createdBefore + 1);
    expect(await claimOf(room.id)).toEqual([]);
  });
});
