// Calendar events and their meetings end to end, on the video-platform simulators: a room's events
// and upcoming events (owners see them in full), the upcoming window and the early-join boundaries
// with an injected clock (4:59 before the start is allowed, 5:01 refused), joining an event by its id
// over HTTP (its meeting made on demand, replaced once it ended), meetings made ahead of their
// events, and a deleted room taking its events with it.
import { ok, type Schemas, type ScribeClient } from "@scribe/client";
import { type Caller } from "@scribe/contracts";
import { isAppError, type ErrorKind } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { ICalAttendeeStatus } from "ical-generator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CALENDAR_TEST_ENV,
  calendarOf,
  icsFeed,
  minutesFrom,
  roomLocation,
  roomWithCalendar,
  startFeedServer,
  wholeSecondNow,
  type CalendarService,
  type FeedEventSpec,
  type FeedServer,
} from "./support/calendar";
import { answer, onMeeting, onRoom, onRoomMeeting, onRoomName } from "./support/api";
import { meetingEvents, startPlatformSystem, type PlatformSystem } from "./support/platforms";

let sys: PlatformSystem;
let feeds: FeedServer;
let calendar: CalendarService;
let alice: ScribeClient;
let bob: ScribeClient;
let anon: ScribeClient;
const ALICE: Caller = { userId: "alice", email: "alice@example.com", via: "bearer" };

beforeAll(async () => {
  feeds = await startFeedServer();
  sys = await startPlatformSystem({ label: "calmeet", env: CALENDAR_TEST_ENV });
  calendar = calendarOf(sys);
  alice = sys.client("alice");
  bob = sys.client("bob");
  anon = sys.client(null);
});
afterAll(async () => {
  await sys?.stop();
  await feeds?.close();
});

const eventsOf = (as: ScribeClient, room: string) => ok(as.GET("/v1/rooms/{room_name}/meetings", onRoomName(room)));
const upcomingOf = (as: ScribeClient, room: string, minutesAhead?: number) =>
  as.GET("/v1/rooms/{room_name}/meetings/upcoming", {
    params: { path: { room_name: room }, query: minutesAhead === undefined ? {} : { minutes_ahead: minutesAhead } },
  });
const activeMeetings = (as: ScribeClient, room: string) => ok(as.GET("/v1/rooms/{room_name}/meetings/active", onRoomName(room)));
const join = (as: ScribeClient, room: string, meetingId: string) =>
  as.POST("/v1/rooms/{room_name}/meetings/{meeting_id}/join", onRoomMeeting(room, meetingId));

/** A room of alice's (shared unless said) whose feed holds `events`, synced at `now`. */
async function roomWithEvents(
  name: string,
  events: (now: Date) => FeedEventSpec[],
  opts: { now?: Date; room?: Partial<Schemas["CreateRoom"]> } = {},
) {
  const now = opts.now ?? wholeSecondNow();
  feeds.set(`/${name}.ics`, icsFeed(events(now).map((e) => ({ location: roomLocation(name), ...e }))));
  const room = await roomWithCalendar(sys.client("alice"), { name, ics_url: feeds.url(`/${name}.ics`), ics_enabled: true, ...opts.room });
  const result = await calendar.syncRoom(room.id, { now });
  expect(result.status).toBe("success");
  const list = await eventsOf(alice, name);
  const byUid = Object.fromEntries(list.map((e) => [e.ics_uid, e]));
  return { room, now, byUid };
}

async function refusal(p: Promise<unknown>): Promise<{ kind: ErrorKind; detail: unknown }> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!isAppError(e)) throw new Error(`expected a refusal, got ${String(e)}`);
  return { kind: e.kind, detail: e.detail };
}

describe("a room's calendar events", () => {
  it("lists every live event by start; the owner sees description and attendees, others do not", async () => {
    const attendees = [
      { email: "ann@example.com", name: "Ann", status: ICalAttendeeStatus.ACCEPTED },
      { email: "ben@example.com", name: "Ben", status: ICalAttendeeStatus.DECLINED },
    ];
    await roomWithEvents(
      "listed",
      (now) => [
        {
          id: "later",
          start: minutesFrom(now, 240),
          end: minutesFrom(now, 270),
          summary: "Later",
          description: "Secret agenda",
          attendees,
        },
        { id: "earlier", start: minutesFrom(now, -50), end: minutesFrom(now, -20), summary: "Earlier", description: "Notes" },
      ],
      { room: { is_shared: true } },
    );
    const mine = await eventsOf(alice, "listed");
    expect(mine.map((e) => e.title)).toEqual(["Earlier", "Later"]);
    expect(mine[1]).toMatchObject({
      description: "Secret agenda",
      attendees: [
        { email: "ann@example.com", name: "Ann", status: "ACCEPTED", role: "REQ-PARTICIPANT" },
        { email: "ben@example.com", name: "Ben", status: "DECLINED", role: "REQ-PARTICIPANT" },
      ],
    });
    for (const who of [bob, anon]) {
      const theirs = await eventsOf(who, "listed");
      expect(theirs.map((e) => [e.title, e.description, e.attendees])).toEqual([
        ["Earlier", null, null],
        ["Later", null, null],
      ]);
      const upcoming = await ok(upcomingOf(who, "listed", 300));
      expect(upcoming.map((e) => [e.title, e.description, e.attendees])).toEqual([["Later", null, null]]);
    }
  });

  it("lists upcoming events: happening now, then starting within the window (120 minutes by default)", async () => {
    await roomWithEvents("agenda", (now) => [
      { id: "ended", start: minutesFrom(now, -50), end: minutesFrom(now, -5), summary: "Ended" },
      { id: "now", start: minutesFrom(now, -15), end: minutesFrom(now, 15), summary: "Happening now" },
      { id: "soon", start: minutesFrom(now, 15), end: minutesFrom(now, 45), summary: "In 15 minutes" },
      { id: "two-hours", start: minutesFrom(now, 119), end: minutesFrom(now, 150), summary: "In two hours" },
      { id: "three-hours", start: minutesFrom(now, 179), end: minutesFrom(now, 210), summary: "In three hours" },
    ]);
    const upcoming = async (minutesAhead?: number) => (await ok(upcomingOf(anon, "agenda", minutesAhead))).map((e) => e.title);
    expect(await upcoming()).toEqual(["Happening now", "In 15 minutes", "In two hours"]);
    expect(await upcoming(180)).toEqual(["Happening now", "In 15 minutes", "In two hours", "In three hours"]);
    expect(await upcoming(30)).toEqual(["Happening now", "In 15 minutes"]);
    expect((await upcomingOf(anon, "agenda", -1)).response.status).toBe(422);
  });

  it("draws the upcoming window exactly: starting at now + window is in, a second later is out; ending now is in", async () => {
    const { byUid } = await roomWithEvents("edges", (now) => [
      { id: "edge", start: minutesFrom(now, 200), end: minutesFrom(now, 230), summary: "Edge" },
    ]);
    const start = new Date(byUid.edge!.start_time);
    const end = minutesFrom(start, 30);
    const seen = async (now: Date, minutes = 120) =>
      (await calendar.queries.upcoming({ caller: ALICE, room_name: "edges", minutes_ahead: minutes }, now)).map((e) => e.ics_uid);
    expect(await seen(minutesFrom(start, -120))).toEqual(["edge"]);
    expect(await seen(new Date(minutesFrom(start, -120).getTime() - 1000))).toEqual([]);
    expect(await seen(end)).toEqual(["edge"]);
    expect(await seen(new Date(end.getTime() + 1000))).toEqual([]);
  });
});

describe("joining a calendar event", () => {
  it("is allowed from 5 minutes before the start (4:59 before: yes, 5:01 before: no) and makes the event's meeting", async () => {
    const { room, byUid } = await roomWithEvents("early", (now) => [
      {
        id: "kickoff",
        start: minutesFrom(now, 20),
        end: minutesFrom(now, 50),
        summary: "Kickoff",
        description: "Plans",
        attendees: [{ email: "ann@example.com", status: ICalAttendeeStatus.TENTATIVE }],
      },
    ]);
    const event = byUid.kickoff!;
    const start = new Date(event.start_time);
    const join = (now: Date, caller: Caller = ALICE) =>
      calendar.commands.joinEvent({ caller, room_name: "early", event_id: event.id, display_name: null }, now);
    expect(await refusal(join(new Date(start.getTime() - 301_000)))).toEqual({
      kind: "bad_request",
      detail: "Meeting has not started yet",
    });
    expect(await refusal(join(minutesFrom(start, 30)))).toEqual({ kind: "bad_request", detail: "Meeting has ended" });
    expect(await activeMeetings(alice, "early")).toEqual([]);

    const meeting = await join(new Date(start.getTime() - 299_000));
    expect(meeting).toMatchObject({
      room_id: room.id,
      calendar_event_id: event.id,
      is_active: true,
      start_date: start.toISOString(),
      calendar_metadata: {
        title: "Kickoff",
        description: "Plans",
        attendees: [{ email: "ann@example.com", name: null, status: "TENTATIVE", role: "REQ-PARTICIPANT" }],
        start_time: start.toISOString(),
        end_time: minutesFrom(start, 30).toISOString(),
        // The outgoing webhook's calendar_event carries both.
        ics_uid: "kickoff",
        location: roomLocation("early"),
      },
    });
    // Signed in: joined with a Daily meeting token made by the service.
    expect(new URL(meeting.room_url).searchParams.get("t")).toBeTruthy();
    // Joining again (the event is ongoing now) gives the same meeting; another user sees no details.
    const again = await join(minutesFrom(start, 10), { userId: "bob", email: null, via: "bearer" });
    expect(again.id).toBe(meeting.id);
    expect(again.calendar_metadata).toMatchObject({ title: "Kickoff", description: null, attendees: null });
  });

  it("works over the join route with the event's id, for anyone, while the event is ongoing", async () => {
    const { byUid } = await roomWithEvents("drop-in", (now) => [
      { id: "ongoing", start: minutesFrom(now, -10), end: minutesFrom(now, 50), summary: "Ongoing", description: "Owner only" },
      { id: "tonight", start: minutesFrom(now, 120), end: minutesFrom(now, 150), summary: "Tonight" },
      { id: "over", start: minutesFrom(now, -40), end: minutesFrom(now, -1), summary: "Over" },
    ]);
    const joinAs = (as: ScribeClient, id: string) => join(as, "drop-in", id);
    const bobs = await ok(joinAs(bob, byUid.ongoing!.id));
    expect(bobs).toMatchObject({
      calendar_event_id: byUid.ongoing!.id,
      host_room_url: "",
      calendar_metadata: { title: "Ongoing", description: null },
    });
    expect(new URL(bobs.room_url).searchParams.get("t")).toBeTruthy();
    const asAnon = await ok(joinAs(anon, byUid.ongoing!.id));
    expect(asAnon.id).toBe(bobs.id);
    expect(new URL(asAnon.room_url).searchParams.get("t")).toBeNull();
    const asAlice = await ok(joinAs(alice, byUid.ongoing!.id));
    expect(asAlice).toMatchObject({ id: bobs.id, calendar_metadata: { description: "Owner only" } });
    expect(asAlice.host_room_url).not.toBe("");
    // The meeting is a normal meeting of the room from now on: listed, and joined by its own id.
    expect((await activeMeetings(anon, "drop-in")).map((m) => m.id)).toContain(bobs.id);
    await ok(joinAs(bob, bobs.id));

    for (const [id, status, detail] of [
      [byUid.tonight!.id, 400, "Meeting has not started yet"],
      [byUid.over!.id, 400, "Meeting has ended"],
      ["no-such-id", 404, "Meeting not found"],
    ] as const) {
      expect(await answer(joinAs(bob, id)), id).toEqual({ status, body: { detail } });
    }
  });

  it("makes a new meeting when the event's meeting has ended, never reactivating it", async () => {
    const { byUid } = await roomWithEvents("rejoin", (now) => [
      { id: "long", start: minutesFrom(now, -5), end: minutesFrom(now, 90), summary: "Long" },
    ]);
    const first = await ok(join(alice, "rejoin", byUid.long!.id));
    await ok(alice.PATCH("/v1/meetings/{meeting_id}/deactivate", onMeeting(first.id)));
    const second = await ok(join(bob, "rejoin", byUid.long!.id));
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ calendar_event_id: byUid.long!.id, is_active: true });
    expect((await answer(join(bob, "rejoin", first.id))).body).toEqual({ detail: "Meeting is not active" });
  });
});

describe("meetings made ahead", () => {
  it("makes the meeting of each event opening for joining or started up to 6 minutes ago, once", async () => {
    const { room, now, byUid } = await roomWithEvents("ahead", (now) => [
      { id: "in-3", start: minutesFrom(now, 3), end: minutesFrom(now, 33), summary: "In 3 minutes", description: "D" },
      { id: "in-10", start: minutesFrom(now, 10), end: minutesFrom(now, 40), summary: "In 10 minutes" },
      { id: "started-4", start: minutesFrom(now, -4), end: minutesFrom(now, 26), summary: "Started 4 minutes ago" },
      { id: "started-8", start: minutesFrom(now, -8), end: minutesFrom(now, 22), summary: "Started 8 minutes ago" },
    ]);
    // A room whose sync is off gets none for its stored events.
    const { byUid: offEvents } = await roomWithEvents(
      "ahead-off",
      (n) => [{ id: "off-3", start: minutesFrom(n, 3), end: minutesFrom(n, 33), summary: "Off" }],
      { now },
    );
    const off = await ok(alice.GET("/v1/rooms/name/{room_name}", onRoomName("ahead-off")));
    await ok(alice.PATCH("/v1/rooms/{room_id}", { ...onRoom(off.id), body: { ics_enabled: false } }));
    await eventually(async () => (await ok(alice.GET("/v1/rooms/{room_name}/ics/status", onRoomName("ahead-off")))).status === "disabled");

    const round = await calendar.createUpcomingMeetings({ now });
    expect(new Set(round.created)).toEqual(new Set([byUid["in-3"]!.id, byUid["started-4"]!.id]));
    expect(round.created).not.toContain(offEvents["off-3"]!.id);
    expect(await calendar.createUpcomingMeetings({ now })).toEqual({ created: [], failed: [] });

    const active = await activeMeetings(alice, "ahead");
    const made = active.find((m) => m.calendar_event_id === byUid["in-3"]!.id)!;
    expect(made).toMatchObject({ start_date: minutesFrom(now, 3).toISOString(), calendar_metadata: { description: "D" } });
    const events = await meetingEvents(sys, made.id);
    expect(events.map((e) => e.type)).toEqual(["meeting.created"]);
    expect(events[0]!.data).toMatchObject({ room_id: room.id, calendar_event_id: byUid["in-3"]!.id });
    // Joining the event later finds that meeting.
    const joined = await calendar.commands.joinEvent(
      { caller: ALICE, room_name: "ahead", event_id: byUid["in-3"]!.id, display_name: null },
      now,
    );
    expect(joined.id).toBe(made.id);
  });
});

describe("deleting a room", () => {
  it("removes the room's calendar events", async () => {
    const { room } = await roomWithEvents("doomed", (now) => [
      { id: "gone", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Gone" },
    ]);
    const db = postgres(sys.db.url, { max: 1, onnotice: () => {} });
    try {
      const count = async () =>
        (await db<{ n: number }[]>`select count(*)::int as n from calendar.calendar_event where room_id = ${room.id}`)[0]!.n;
      expect(await count()).toBe(1);
      await ok(alice.DELETE("/v1/rooms/{room_id}", onRoom(room.id)));
      await eventually(async () => (await count()) === 0, { message: "the room's calendar events were removed" });
      expect((await alice.GET("/v1/rooms/{room_name}/meetings", onRoomName("doomed"))).response.status).toBe(404);
    } finally {
      await db.end();
    }
  });
});
