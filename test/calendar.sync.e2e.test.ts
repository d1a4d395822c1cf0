// ICS sync end to end: feeds generated with ical-generator and served by a local HTTP server; each
// status of a run (SUCCESS for a new and a changed feed, UNCHANGED by ETag and by content hash,
// ERROR for an unreachable, failing, malformed or oversized feed with the previous events kept,
// SKIPPED for a disabled room and a sync already in progress), exact matching, recurrences, the
// scheduler, the owner's status and force sync over HTTP, the sync reaching room responses, and the
// SSRF guard refusing a loopback feed when ALLOW_PRIVATE_URLS is not set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@scribe/kit/testing";
import { ICalEventRepeatingFreq, ICalAttendeeStatus } from "ical-generator";
import {
  CALENDAR_TEST_ENV,
  calendarOf,
  icsFeed,
  minutesFrom,
  roomLocation,
  roomWithCalendar,
  startFeedServer,
  type CalendarService,
  type FeedServer,
  wholeSecondNow,
} from "./support/calendar";
import { ok, type Schemas, type ScribeClient } from "@scribe/client";
import { answer, onRoom, onRoomName } from "./support/api";
import { startSystem, streamEvents, type TestSystem } from "./support/system";

let sys: TestSystem;
let feeds: FeedServer;
let calendar: CalendarService;
let alice: ScribeClient;
let bob: ScribeClient;
let anon: ScribeClient;
const MAX_FEED_BYTES = 64 * 1024;

beforeAll(async () => {
  feeds = await startFeedServer();
  sys = await startSystem({
    label: "calsync",
    services: ["rooms", "calendar", "gateway"],
    env: { ...CALENDAR_TEST_ENV, ICS_MAX_FEED_BYTES: String(MAX_FEED_BYTES), ICS_FETCH_TIMEOUT_MS: "5000" },
  });
  calendar = calendarOf(sys);
  alice = sys.client("alice");
  bob = sys.client("bob");
  anon = sys.client(null);
});
afterAll(async () => {
  await sys?.stop();
  await feeds?.close();
});

const meetingsOf = (room: string, as: ScribeClient = alice) => ok(as.GET("/v1/rooms/{room_name}/meetings", onRoomName(room)));
const titles = async (room: string, as: ScribeClient = alice) => (await meetingsOf(room, as)).map((e) => e.title);
const patchRoom = (id: string, body: Schemas["UpdateRoom"]) => alice.PATCH("/v1/rooms/{room_id}", { ...onRoom(id), body });
const syncNow = (as: ScribeClient, room: string) => as.POST("/v1/rooms/{room_name}/ics/sync", onRoomName(room));
const statusOf = (as: ScribeClient, room: string) => as.GET("/v1/rooms/{room_name}/ics/status", onRoomName(room));
/** A room of alice's syncing the feed at `path`. */
const feedRoom = (name: string, path: string, extra: Omit<Schemas["CreateRoom"], "name"> = {}) =>
  roomWithCalendar(alice, { name, ics_url: feeds.url(path), ics_enabled: true, ...extra });

describe("sync runs and their status", () => {
  it("stores the room's events from a new feed (success) and only those whose location is the room's URL", async () => {
    const now = wholeSecondNow();
    feeds.set(
      "/team.ics",
      icsFeed([
        {
          id: "standup",
          start: minutesFrom(now, 60),
          end: minutesFrom(now, 90),
          summary: "Standup",
          description: "Daily",
          location: roomLocation("team"),
          attendees: [{ email: "ann@example.com", name: "Ann", status: ICalAttendeeStatus.ACCEPTED }],
        },
        {
          id: "other-room",
          start: minutesFrom(now, 120),
          end: minutesFrom(now, 150),
          summary: "Team 2 sync",
          location: roomLocation("team-2"),
        },
        {
          id: "trailing-slash",
          start: minutesFrom(now, 180),
          end: minutesFrom(now, 210),
          summary: "Review",
          location: ` ${roomLocation("TEAM")}/ `,
        },
        {
          id: "url-in-description",
          start: minutesFrom(now, 240),
          end: minutesFrom(now, 270),
          summary: "Elsewhere",
          description: roomLocation("team"),
        },
      ]),
    );
    const team = await feedRoom("team", "/team.ics");
    const team2 = await feedRoom("team-2", "/team.ics");
    expect(await calendar.syncRoom(team.id, { now })).toEqual({
      status: "success",
      hash: expect.stringMatching(/^[0-9a-f]{32}$/),
      events_found: 2,
      total_events: 4,
      events_created: 2,
      events_updated: 0,
      events_deleted: 0,
      error: null,
      reason: null,
    });
    expect(await titles("team")).toEqual(["Standup", "Review"]);
    expect(await calendar.syncRoom(team2.id, { now })).toMatchObject({ status: "success", events_found: 1, events_created: 1 });
    expect(await titles("team-2")).toEqual(["Team 2 sync"]);
    const [standup] = await meetingsOf("team");
    expect(standup).toMatchObject({
      room_id: team.id,
      ics_uid: "standup",
      title: "Standup",
      description: "Daily",
      location: roomLocation("team"),
      start_time: minutesFrom(now, 60).toISOString(),
      end_time: minutesFrom(now, 90).toISOString(),
      attendees: [{ email: "ann@example.com", name: "Ann", status: "ACCEPTED", role: "REQ-PARTICIPANT" }],
    });
  });

  it("applies a changed feed: updates, adds and soft-deletes future events, and keeps started ones", async () => {
    const now = new Date();
    const v1 = icsFeed([
      { id: "keep", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Planning", location: roomLocation("changing") },
      {
        id: "drop",
        start: minutesFrom(now, 120),
        end: minutesFrom(now, 150),
        summary: "Dropped later",
        location: roomLocation("changing"),
      },
      {
        id: "started",
        start: minutesFrom(now, -10),
        end: minutesFrom(now, 50),
        summary: "Already running",
        location: roomLocation("changing"),
      },
    ]);
    feeds.set("/changing.ics", v1);
    const room = await feedRoom("changing", "/changing.ics");
    expect(await calendar.syncRoom(room.id, { now })).toMatchObject({ status: "success", events_created: 3 });
    const later = minutesFrom(now, 1);
    feeds.set(
      "/changing.ics",
      icsFeed([
        {
          id: "keep",
          start: minutesFrom(now, 60),
          end: minutesFrom(now, 90),
          summary: "Planning (renamed)",
          location: roomLocation("changing"),
        },
        { id: "new", start: minutesFrom(now, 200), end: minutesFrom(now, 230), summary: "New one", location: roomLocation("changing") },
      ]),
    );
    expect(await calendar.syncRoom(room.id, { now: later, force: true })).toMatchObject({
      status: "success",
      events_found: 2,
      events_created: 1,
      events_updated: 1,
      events_deleted: 1,
    });
    expect(await titles("changing")).toEqual(["Already running", "Planning (renamed)", "New one"]);
    // A soft-deleted event that comes back is restored (the reference only restores it if it changed).
    feeds.set("/changing.ics", v1);
    expect(await calendar.syncRoom(room.id, { now: minutesFrom(now, 2), force: true })).toMatchObject({
      events_created: 0,
      events_updated: 2,
      events_deleted: 1,
    });
    expect(await titles("changing")).toEqual(["Already running", "Planning", "Dropped later"]);
  });

  it("ends unchanged when the server answers 304 to the stored ETag, and when the body's hash is the same", async () => {
    const now = new Date();
    const body = icsFeed([
      { id: "same", start: minutesFrom(now, 30), end: minutesFrom(now, 60), summary: "Same", location: roomLocation("steady") },
    ]);
    feeds.set("/steady.ics", body);
    const room = await feedRoom("steady", "/steady.ics");
    const first = await calendar.syncRoom(room.id, { now });
    expect(first).toMatchObject({ status: "success", events_found: 1, total_events: 1 });
    expect(feeds.requests("/steady.ics").at(-1)).toMatchObject({ ifNoneMatch: null, answered: 200, userAgent: "Scribe-Calendar/1.0" });

    const second = await calendar.syncRoom(room.id, { now: minutesFrom(now, 1), force: true });
    expect(second).toEqual({ ...first, status: "unchanged", events_created: 0, events_updated: 0, events_deleted: 0 });
    expect(feeds.requests("/steady.ics").at(-1)).toMatchObject({ ifNoneMatch: expect.stringMatching(/^"/), answered: 304 });

    // A server without ETags: the same body is recognised by its hash.
    feeds.set("/steady.ics", { body, etag: false });
    const third = await calendar.syncRoom(room.id, { now: minutesFrom(now, 2), force: true });
    expect(third).toMatchObject({ status: "unchanged", hash: first.hash, events_found: 1 });
    expect(feeds.requests("/steady.ics").at(-1)).toMatchObject({ answered: 200 });
    expect(await titles("steady")).toEqual(["Same"]);
  });

  it("reads an unchanged feed again in full once its stored events no longer reach a day ahead", async () => {
    const now = new Date();
    const first = new Date(Math.ceil(now.getTime() / 3600_000) * 3600_000);
    feeds.set(
      "/daily.ics",
      icsFeed([
        {
          id: "daily",
          start: first,
          end: minutesFrom(first, 15),
          summary: "Daily",
          location: roomLocation("rolling"),
          repeating: { freq: ICalEventRepeatingFreq.DAILY, count: 30 },
        },
      ]),
    );
    const room = await feedRoom("rolling", "/daily.ics");
    const initial = await calendar.syncRoom(room.id, { now });
    // Seven days ahead by default (ICS_SYNC_HORIZON_HOURS=168): today's instance plus seven more at most.
    expect(initial.events_found).toBeGreaterThanOrEqual(7);
    expect(await calendar.syncRoom(room.id, { now: minutesFrom(now, 5 * 24 * 60), force: true })).toMatchObject({ status: "unchanged" });
    const sixDays = await calendar.syncRoom(room.id, { now: minutesFrom(now, 6 * 24 * 60 + 60), force: true });
    expect(sixDays).toMatchObject({ status: "success", events_created: expect.any(Number) });
    expect(sixDays.events_created).toBeGreaterThan(0);
  });

  it("ends in error with the reason when the feed is unreachable, failing, malformed or too large, and keeps the previous events", async () => {
    const now = new Date();
    feeds.set(
      "/fragile.ics",
      icsFeed([{ id: "kept", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Kept", location: roomLocation("fragile") }]),
    );
    const room = await feedRoom("fragile", "/fragile.ics");
    expect(await calendar.syncRoom(room.id, { now })).toMatchObject({ status: "success", events_created: 1 });
    const failures: [string, () => void, RegExp][] = [
      ["HTTP error", () => feeds.set("/fragile.ics", { body: "boom", status: 500 }), /^The feed answered HTTP 500$/],
      ["malformed", () => feeds.set("/fragile.ics", "<html><body>Please sign in</body></html>"), /^The feed is not an iCalendar file/],
      [
        "oversized",
        () => feeds.set("/fragile.ics", `BEGIN:VCALENDAR\r\n${"X-PAD:".padEnd(MAX_FEED_BYTES, "x")}\r\nEND:VCALENDAR`),
        /^Response is larger than 65536 bytes/,
      ],
    ];
    let minute = 1;
    for (const [what, breakFeed, reason] of failures) {
      breakFeed();
      const result = await calendar.syncRoom(room.id, { now: minutesFrom(now, minute++), force: true });
      expect(result.status, what).toBe("error");
      expect(result.error, what).toMatch(reason);
      expect(await titles("fragile"), what).toEqual(["Kept"]);
    }
    // Unreachable: a feed URL where nothing listens.
    expect((await patchRoom(room.id, { ics_url: "http://127.0.0.1:9/feed.ics" })).response.status).toBe(200);
    // Until the room change reaches the calendar service, runs still read the old URL.
    const unreachable = await eventually(async () => {
      const r = await calendar.syncRoom(room.id, { now: minutesFrom(now, minute), force: true });
      return r.error?.includes("127.0.0.1:9") ? r : null;
    });
    expect(unreachable).toMatchObject({ status: "error", error: "Could not reach 127.0.0.1:9: ECONNREFUSED" });
    expect(await titles("fragile")).toEqual(["Kept"]);
    const status = await ok(statusOf(alice, "fragile"));
    expect(status).toMatchObject({
      status: "enabled",
      last_result: "error",
      last_error: "Could not reach 127.0.0.1:9: ECONNREFUSED",
      events_count: 1,
    });
    // The last good sync stays the last sync.
    expect(status.last_sync).toBe(now.toISOString());
  });

  it("skips a room whose sync is disabled, and a room whose sync is already running", async () => {
    const now = new Date();
    feeds.set("/off.ics", icsFeed([]));
    const off = await roomWithCalendar(alice, { name: "sync-off", ics_url: feeds.url("/off.ics"), ics_enabled: false });
    expect(await calendar.syncRoom(off.id, { now })).toMatchObject({ status: "skipped", reason: "ICS not configured" });
    expect(feeds.requests("/off.ics")).toHaveLength(0);

    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    feeds.set("/slow.ics", {
      body: icsFeed([
        { id: "slow", start: minutesFrom(now, 30), end: minutesFrom(now, 60), summary: "Slow", location: roomLocation("slow") },
      ]),
      gate,
    });
    const slow = await feedRoom("slow", "/slow.ics");
    const running = calendar.syncRoom(slow.id, { now });
    await feeds.received("/slow.ics", 1);
    expect(await calendar.syncRoom(slow.id, { now, force: true })).toMatchObject({ status: "skipped", reason: "Sync already in progress" });
    const overHttp = await syncNow(alice, "slow");
    expect(overHttp.data).toMatchObject({ status: "skipped", reason: "Sync already in progress" });
    open();
    expect(await running).toMatchObject({ status: "success", events_created: 1 });
    expect(feeds.requests("/slow.ics")).toHaveLength(1);
  });
});

describe("recurring events", () => {
  it("stores each instance inside the horizon, without the excluded date and with the moved instance at its new time", async () => {
    const now = new Date();
    const first = new Date(Math.ceil(now.getTime() / 86_400_000) * 86_400_000 + 10 * 3600_000);
    const day = 24 * 60;
    feeds.set(
      "/series.ics",
      icsFeed([
        {
          id: "series",
          start: first,
          end: minutesFrom(first, 30),
          summary: "Standup",
          location: roomLocation("series"),
          repeating: { freq: ICalEventRepeatingFreq.DAILY, count: 4, exclude: [minutesFrom(first, day)] },
        },
        {
          id: "series",
          recurrenceId: minutesFrom(first, 2 * day),
          start: minutesFrom(first, 2 * day + 180),
          end: minutesFrom(first, 2 * day + 210),
          summary: "Standup (moved)",
          location: roomLocation("series"),
        },
      ]),
    );
    const room = await feedRoom("series", "/series.ics");
    expect(await calendar.syncRoom(room.id, { now })).toMatchObject({ status: "success", events_found: 3, events_created: 3 });
    const events = await meetingsOf("series");
    expect(events.map((e) => [e.title, e.start_time])).toEqual([
      ["Standup", first.toISOString()],
      ["Standup (moved)", minutesFrom(first, 2 * day + 180).toISOString()],
      ["Standup", minutesFrom(first, 3 * day).toISOString()],
    ]);
    expect(new Set(events.map((e) => e.ics_uid))).toEqual(new Set(["series"]));
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });
});

describe("the scheduler", () => {
  it("syncs the enabled rooms that are due, and each again only once its interval has passed", async () => {
    const now = new Date();
    feeds.set("/sched-a.ics", icsFeed([]));
    feeds.set("/sched-b.ics", icsFeed([]));
    // 1 = one minute: up to 60 the interval is read as minutes (the reference form's unit).
    const a = await feedRoom("sched-a", "/sched-a.ics", { ics_fetch_interval: 1 });
    const b = await feedRoom("sched-b", "/sched-b.ics", { ics_fetch_interval: 600 });
    const c = await roomWithCalendar(alice, { name: "sched-off", ics_url: feeds.url("/sched-b.ics"), ics_enabled: false });
    // A new room is due within its jitter (at most a tenth of its interval).
    const round1 = await calendar.syncDueRooms({ now: minutesFrom(now, 2) });
    const synced = (round: { roomId: string }[]) => round.map((r) => r.roomId);
    expect(synced(round1)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(synced(round1)).not.toContain(c.id);
    expect(synced(await calendar.syncDueRooms({ now: minutesFrom(now, 2.5) }))).toEqual([]);
    const round3 = synced(await calendar.syncDueRooms({ now: minutesFrom(now, 4) }));
    expect(round3).toContain(a.id);
    expect(round3).not.toContain(b.id);
    expect(synced(await calendar.syncDueRooms({ now: minutesFrom(now, 14) }))).toEqual(expect.arrayContaining([a.id, b.id]));
  });
});

describe("over HTTP: force sync, status, sync data on the room", () => {
  it("lets the owner force a sync that answers the counts, whatever the interval", async () => {
    const now = new Date();
    feeds.set(
      "/forced.ics",
      icsFeed([
        { id: "f1", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Mine", location: roomLocation("forced") },
        { id: "f2", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Not mine", location: roomLocation("elsewhere") },
      ]),
    );
    await feedRoom("forced", "/forced.ics");
    const res = await syncNow(alice, "forced");
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ status: "success", events_found: 1, total_events: 2, events_created: 1 });
    // Again at once: the interval has not passed, a forced sync runs anyway (the reference skips it).
    expect((await syncNow(alice, "forced")).data).toMatchObject({
      status: "unchanged",
      events_found: 1,
      total_events: 2,
    });
  });

  it("answers the owner only, with the reference's errors", async () => {
    feeds.set("/owned.ics", icsFeed([]));
    await feedRoom("owned", "/owned.ics");
    await roomWithCalendar(alice, { name: "no-feed" });
    for (const who of [bob, anon]) {
      expect(await answer(syncNow(who, "owned"))).toEqual({ status: 403, body: { detail: "Only room owner can trigger ICS sync" } });
      expect(await answer(statusOf(who, "owned"))).toEqual({ status: 403, body: { detail: "Only room owner can view ICS status" } });
    }
    const notConfigured = await syncNow(alice, "no-feed");
    expect(notConfigured.response.status).toBe(400);
    expect(notConfigured.error).toEqual({ detail: "ICS not configured for this room" });
    expect((await statusOf(alice, "no-feed")).data).toEqual({
      status: "disabled",
      last_sync: null,
      next_sync: null,
      last_etag: null,
      events_count: 0,
      last_attempt: null,
      last_result: null,
      last_error: null,
    });
    const nowhere = onRoomName("nowhere");
    for (const [path, call] of [
      ["sync", alice.POST("/v1/rooms/{room_name}/ics/sync", nowhere)],
      ["status", alice.GET("/v1/rooms/{room_name}/ics/status", nowhere)],
      ["meetings", alice.GET("/v1/rooms/{room_name}/meetings", nowhere)],
      ["upcoming", alice.GET("/v1/rooms/{room_name}/meetings/upcoming", nowhere)],
    ] as const) {
      const res = await call;
      expect(res.response.status, path).toBe(404);
      expect(res.error).toEqual({ detail: "Room not found" });
    }
  });

  it("answers 500 with the reason when a forced sync fails", async () => {
    feeds.set("/broken.ics", { body: "gone", status: 404 });
    await feedRoom("broken", "/broken.ics");
    const res = await syncNow(alice, "broken");
    expect(res.response.status).toBe(500);
    expect(res.error).toEqual({ detail: "The feed answered HTTP 404" });
  });

  it("shows the status: enabled, last sync, next sync, the feed's hash and the event count", async () => {
    const now = new Date();
    feeds.set(
      "/status.ics",
      icsFeed([
        { id: "s1", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "One", location: roomLocation("status") },
        { id: "s2", start: minutesFrom(now, -30), end: minutesFrom(now, -20), summary: "Earlier today", location: roomLocation("status") },
      ]),
    );
    const room = await feedRoom("status", "/status.ics", { ics_fetch_interval: 600 });
    const result = await calendar.syncRoom(room.id, { now });
    const status = await ok(statusOf(alice, "status"));
    expect(status).toMatchObject({
      status: "enabled",
      last_sync: now.toISOString(),
      last_etag: result.hash,
      events_count: 2,
      last_result: "success",
      last_error: null,
    });
    // Exactly last_sync + ics_fetch_interval (the scheduler's own next run is jittered).
    expect(status.next_sync).toBe(new Date(now.getTime() + 600_000).toISOString());
  });

  it("shows the last sync and the feed's hash on the room, without a room change of its own", async () => {
    const now = new Date();
    feeds.set("/shown.ics", icsFeed([]));
    const room = await feedRoom("shown", "/shown.ics");
    const before = await ok(alice.GET("/v1/rooms/{room_id}", onRoom(room.id)));
    expect(before).toMatchObject({ ics_last_sync: null, ics_last_etag: null });
    const result = await calendar.syncRoom(room.id, { now });
    const after = await eventually(async () => {
      const r = await ok(alice.GET("/v1/rooms/{room_id}", onRoom(room.id)));
      return r.ics_last_sync ? r : null;
    });
    expect(after).toMatchObject({ ics_last_sync: now.toISOString(), ics_last_etag: result.hash });
    expect(await ok(anon.GET("/v1/rooms/name/{room_name}", onRoomName("shown")))).toMatchObject({ ics_last_sync: now.toISOString() });
    const roomEvents = (await streamEvents(sys.prefix, "ROOMS")).filter((e) => e.subject === room.id);
    expect(roomEvents.map((e) => e.type)).toEqual(["room.created"]);
    const calendarEvents = (await streamEvents(sys.prefix, "CALENDAR")).filter((e) => e.subject === room.id);
    expect(calendarEvents.map((e) => e.type)).toEqual(["calendar.sync.completed"]);
    // A room setting changed later keeps the sync data.
    expect((await patchRoom(room.id, { zulip_topic: "x" })).data).toMatchObject({
      ics_last_sync: now.toISOString(),
    });
  });

  it("accepts webcal:// feed URLs", async () => {
    const res = await alice.POST("/v1/rooms", {
      body: { name: "webcal", ics_url: "webcal://calendar.example.com/team.ics", ics_fetch_interval: 900 },
    });
    expect(res.data).toMatchObject({
      ics_url: "webcal://calendar.example.com/team.ics",
      ics_fetch_interval: 900,
      ics_enabled: false,
    });
  });
});

describe("the SSRF guard", () => {
  it("refuses a feed on a loopback address when ALLOW_PRIVATE_URLS is not set", async () => {
    const guarded = await startSystem({
      label: "calssrf",
      services: ["rooms", "calendar", "gateway"],
      env: { ICS_SYNC_TICK_SECONDS: "0", CALENDAR_MEETINGS_TICK_SECONDS: "0" },
    });
    try {
      feeds.set("/private.ics", icsFeed([]));
      const guardedAlice = guarded.client("alice");
      await roomWithCalendar(guardedAlice, { name: "private-feed", ics_url: feeds.url("/private.ics"), ics_enabled: true });
      const res = await syncNow(guardedAlice, "private-feed");
      expect(res.response.status).toBe(500);
      expect(res.error?.detail).toBe(
        "Refused to connect to 127.0.0.1: loopback address; loopback, private and link-local addresses are not allowed (ALLOW_PRIVATE_URLS)",
      );
      expect(feeds.requests("/private.ics")).toHaveLength(0);
    } finally {
      await guarded.stop();
    }
  });
});
