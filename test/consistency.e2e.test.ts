// Read-your-writes across services (issue 21.1, docs/ARCHITECTURE.md "Consistency: read-your-writes"):
// a request made right after a room is created, changed or deleted sees that change in the meetings
// and calendar services, whose room copies are fed by events that arrive later — for the client
// that wrote, for another client, and for a caller that brings no known version at all.
import { createScribeClient, ok, type Schemas, type ScribeClient } from "@scribe/client";
import { meetingsOps, type Caller } from "@scribe/contracts";
import { servicesByName } from "@scribe/cli";
import { connectBus, rpcCall, startProcess, type Bus, type RunningProcess } from "@scribe/kit";
import { TEST_NATS_URL } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALENDAR_TEST_ENV, startFeedServer, type FeedServer } from "./support/calendar";
import { answer, onRoom, onRoomName } from "./support/api";
import { startPlatformSystem, type PlatformSystem } from "./support/platforms";

let sys: PlatformSystem;
let feeds: FeedServer;
let bus: Bus;
let alice: ScribeClient;
let bob: ScribeClient;
const ROOMS = 200;
const INTERNAL: Caller = { userId: null, email: null, via: "internal" };
const createMeeting = (as: ScribeClient, room: string) => as.POST("/v1/rooms/{room_name}/meeting", { ...onRoomName(room), body: {} });
const syncNow = (as: ScribeClient, room: string) => as.POST("/v1/rooms/{room_name}/ics/sync", onRoomName(room));
const icsStatus = (as: ScribeClient, room: string) => as.GET("/v1/rooms/{room_name}/ics/status", onRoomName(room));
const upcoming = (as: ScribeClient, room: string) => as.GET("/v1/rooms/{room_name}/meetings/upcoming", onRoomName(room));
const switchPlatform = (room: { id: string }, platform: NonNullable<Schemas["UpdateRoom"]["platform"]>) =>
  ok(alice.PATCH("/v1/rooms/{room_id}", { ...onRoom(room.id), body: { platform } }));
const deleteRoom = (room: { id: string }) => ok(alice.DELETE("/v1/rooms/{room_id}", onRoom(room.id)));
/** The answers that were not 200, as "URL → status body" lines. */
function notOk(answers: { response: Response; error?: unknown }[]): string[] {
  return answers.filter((a) => a.response.status !== 200).map((a) => `${a.response.url} → ${a.response.status} ${JSON.stringify(a.error)}`);
}

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.set("/empty.ics", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n");
  sys = await startPlatformSystem({
    label: "ryw",
    services: ["rooms", "meetings", "calendar", "gateway"],
    env: CALENDAR_TEST_ENV,
  });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "test-ryw" });
  alice = sys.client("alice");
  bob = sys.client("bob");
}, 60_000);
afterAll(async () => {
  await bus?.close();
  await sys?.stop();
  await feeds?.close();
});

const createRoom = (name: string, extra: Partial<Schemas["CreateRoom"]> = {}) =>
  ok(alice.POST("/v1/rooms", { body: { name, ics_url: feeds.url("/empty.ics"), ics_enabled: true, ...extra } }));

describe("read-your-writes", () => {
  it(`sees each of ${ROOMS} new rooms at once in meeting creation, ICS sync, ICS status and upcoming events`, async () => {
    const failures: string[] = [];
    for (let i = 0; i < ROOMS; i++) {
      const room = await createRoom(`ryw-${i}`);
      const answers = await Promise.all([
        createMeeting(alice, room.name),
        syncNow(alice, room.name),
        icsStatus(alice, room.name),
        upcoming(alice, room.name),
      ]);
      failures.push(...notOk(answers));
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it("another client sees a new room at once, and so does a caller that knows no version", async () => {
    const room = await createRoom("ryw-other");
    await ok(createMeeting(bob, room.name));
    const direct = await createRoom("ryw-direct");
    const meeting = await rpcCall(bus, meetingsOps.create, { caller: INTERNAL, room_name: direct.name, allow_duplicated: false });
    expect(meeting.room_id).toBe(direct.id);
  });

  it("creates the meeting on the platform a room was just switched to", async () => {
    for (let i = 0; i < 10; i++) {
      const room = await createRoom(`ryw-switch-${i}`, { platform: "daily" });
      await switchPlatform(room, "whereby");
      const meeting = await ok(createMeeting(bob, room.name));
      expect(meeting.platform).toBe("whereby");
    }
  });

  it("sees a deleted room as gone at once", async () => {
    for (let i = 0; i < 10; i++) {
      const room = await createRoom(`ryw-gone-${i}`);
      await ok(createMeeting(alice, room.name));
      await deleteRoom(room);
      for (const res of [
        await answer(createMeeting(bob, room.name)),
        await answer(icsStatus(bob, room.name)),
        await answer(upcoming(bob, room.name)),
      ]) {
        expect(res).toEqual({ status: 404, body: { detail: "Room not found" } });
      }
    }
  });

  it("answers the written versions so a client can carry them to another gateway replica", async () => {
    const { data: body, response } = await alice.POST("/v1/rooms", { body: { name: "ryw-header" } });
    const header = response.headers.get("scribe-versions") ?? "";
    expect(header).toContain(`room:id:${body!.id}=1`);
    expect(header).toContain("room:name:ryw-header=1");
  });
});

describe("read-your-writes across gateway replicas", () => {
  // A second process runs another replica of the gateway, meetings and calendar on the same
  // database and bus prefix: the writer talks to replica 1, the reader to replica 2, and no
  // client carries Scribe-Versions — replica 2 learns the written versions from the shared bucket.
  let second: RunningProcess;
  let onSecond: (name: string) => ScribeClient;
  const ROUNDS = Number(process.env.RYW_REPLICA_ROUNDS ?? 50);

  beforeAll(async () => {
    second = await startProcess(servicesByName(["meetings", "calendar", "gateway"]), sys.env);
    const gateway = second.services.find((s) => s.name === "gateway")!;
    const base = `http://127.0.0.1:${gateway.exports.port as number}`;
    // The same credentials as on replica 1, sent to replica 2's address.
    onSecond = (name) => createScribeClient({ baseUrl: base, token: () => sys.token(name) });
  }, 60_000);
  afterAll(async () => second?.stop());

  it(`sees each of ${ROUNDS} rooms created on replica 1 at once on replica 2`, async () => {
    const failures: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const room = await createRoom(`ryw2-${i}`);
      const answers = await Promise.all([
        createMeeting(onSecond("bob"), room.name),
        syncNow(onSecond("alice"), room.name),
        icsStatus(onSecond("alice"), room.name),
        upcoming(onSecond("bob"), room.name),
      ]);
      failures.push(...notOk(answers));
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it(`creates the meeting on replica 2 on the platform a room was just switched to on replica 1 (${ROUNDS} rounds)`, async () => {
    const wrong: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const room = await createRoom(`ryw2-switch-${i}`, { platform: "daily" });
      // Replica 2's meetings copy holds the room at its first version before the switch.
      await ok(onSecond("bob").GET("/v1/rooms/{room_name}/meetings/active", onRoomName(room.name)));
      await switchPlatform(room, "whereby");
      const meeting = await ok(createMeeting(onSecond("bob"), room.name));
      if (meeting.platform !== "whereby") wrong.push(`${room.name}: ${meeting.platform}`);
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it("sees a room deleted on replica 1 as gone at once on replica 2", async () => {
    for (let i = 0; i < 10; i++) {
      const room = await createRoom(`ryw2-gone-${i}`);
      await ok(createMeeting(onSecond("bob"), room.name));
      await deleteRoom(room);
      expect(await answer(createMeeting(onSecond("bob"), room.name))).toEqual({ status: 404, body: { detail: "Room not found" } });
    }
  });
});
