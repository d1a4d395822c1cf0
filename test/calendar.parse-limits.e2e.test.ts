// Reading ICS feeds off the main thread (issue 15.6): a large feed is parsed in a worker thread while
// the process keeps answering; a feed past the time budget or the instance cap fails the sync with
// the reason in the ICS status, and the room keeps its previous events.
import { ICalEventRepeatingFreq } from "ical-generator";
import { ok } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onRoomName } from "./support/api";
import {
  CALENDAR_TEST_ENV,
  calendarOf,
  icsFeed,
  minutesFrom,
  roomLocation,
  roomWithCalendar,
  startFeedServer,
  type FeedEventSpec,
  type FeedServer,
} from "./support/calendar";
import { startSystem, type TestSystem } from "./support/system";

let feeds: FeedServer;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => feeds?.close());

/** `series` daily series elsewhere (expensive to expand) and one event of `room`. */
function largeFeed(room: string, series: number, now: Date): string {
  const events: FeedEventSpec[] = [
    { id: "ours", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Ours", location: roomLocation(room) },
  ];
  for (let i = 0; i < series; i++) {
    events.push({
      id: `series-${i}`,
      start: minutesFrom(now, i),
      end: minutesFrom(now, i + 30),
      summary: `Series ${i}`,
      location: `https://elsewhere.example.com/${i}`,
      repeating: { freq: ICalEventRepeatingFreq.DAILY, count: 30 },
    });
  }
  return icsFeed(events);
}

/** Series that ended long ago: slow to read, yet no instance of them counts against the instance cap. */
function slowFeedWithoutInstances(room: string, series: number, now: Date): string {
  const events: FeedEventSpec[] = [
    { id: "ours", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Ours", location: roomLocation(room) },
  ];
  for (let i = 0; i < series; i++) {
    const start = minutesFrom(now, -400 * 24 * 60 + i);
    events.push({
      id: `past-${i}`,
      start,
      end: minutesFrom(start, 30),
      summary: `Past ${i}`,
      location: `https://elsewhere.example.com/${i}`,
      repeating: { freq: ICalEventRepeatingFreq.DAILY, count: 30 },
    });
  }
  return icsFeed(events);
}

async function titles(sys: TestSystem, room: string): Promise<(string | null | undefined)[]> {
  return (await ok(sys.client("alice").GET("/v1/rooms/{room_name}/meetings", onRoomName(room)))).map((e) => e.title);
}

describe("a large feed", () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem({
      label: "calparse",
      services: ["rooms", "calendar", "gateway"],
      env: { ...CALENDAR_TEST_ENV, ICS_PARSE_TIMEOUT_MS: "120000", ICS_MAX_EVENT_INSTANCES: "100000" },
    });
  });
  afterAll(async () => sys?.stop());

  it("is read while the process keeps running: heartbeats and requests are answered during the parse", async () => {
    const now = new Date();
    feeds.set("/large.ics", largeFeed("large", 300, now));
    const room = await roomWithCalendar(sys.client("alice"), { name: "large", ics_url: feeds.url("/large.ics"), ics_enabled: true });
    const calendar = calendarOf(sys) as ReturnType<typeof calendarOf> & { parsesInFlight(): number };

    let beatsWhileParsing = 0;
    let answeredWhileParsing = 0;
    let asking = false;
    const heartbeat = setInterval(() => {
      if (calendar.parsesInFlight() === 0) return;
      beatsWhileParsing++;
      if (asking) return;
      asking = true;
      void sys
        .client(null)
        .GET("/health")
        .then(({ response }) => {
          if (response.ok && calendar.parsesInFlight() > 0) answeredWhileParsing++;
          asking = false;
        });
    }, 5);
    let result;
    try {
      result = await calendar.syncRoom(room.id, { now, force: true });
    } finally {
      clearInterval(heartbeat);
    }
    expect(result).toMatchObject({ status: "success", events_found: 1 });
    expect(result.total_events).toBeGreaterThan(300);
    expect(beatsWhileParsing).toBeGreaterThan(0);
    expect(answeredWhileParsing).toBeGreaterThan(0);
    expect(calendar.parsesInFlight()).toBe(0);
  });
});

describe("feed limits", () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startSystem({
      label: "calbudget",
      services: ["rooms", "calendar", "gateway"],
      env: { ...CALENDAR_TEST_ENV, ICS_PARSE_TIMEOUT_MS: "1000", ICS_MAX_EVENT_INSTANCES: "50" },
    });
  });
  afterAll(async () => sys?.stop());

  it("fails a feed past the instance cap or the time budget, reports it in the status and keeps the events", async () => {
    const now = new Date();
    feeds.set(
      "/limited.ics",
      icsFeed([{ id: "kept", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Kept", location: roomLocation("limited") }]),
    );
    const room = await roomWithCalendar(sys.client("alice"), { name: "limited", ics_url: feeds.url("/limited.ics"), ics_enabled: true });
    const calendar = calendarOf(sys);
    expect(await calendar.syncRoom(room.id, { now, force: true })).toMatchObject({ status: "success", events_created: 1 });

    const everyHour = icsFeed([
      { id: "kept", start: minutesFrom(now, 60), end: minutesFrom(now, 90), summary: "Kept", location: roomLocation("limited") },
      {
        id: "hourly",
        start: minutesFrom(now, 5),
        end: minutesFrom(now, 10),
        summary: "Hourly",
        location: roomLocation("limited"),
        repeating: { freq: ICalEventRepeatingFreq.HOURLY, count: 100 },
      },
    ]);
    feeds.set("/limited.ics", everyHour);
    const capped = await calendar.syncRoom(room.id, { now: minutesFrom(now, 1), force: true });
    expect(capped).toMatchObject({ status: "error" });
    expect(capped.error).toMatch(/more than 50 event instances/);
    expect(await titles(sys, "limited")).toEqual(["Kept"]);

    feeds.set("/limited.ics", slowFeedWithoutInstances("limited", 3000, now));
    const slow = await calendar.syncRoom(room.id, { now: minutesFrom(now, 2), force: true });
    expect(slow).toMatchObject({ status: "error" });
    expect(slow.error).toMatch(/^Reading the feed took longer than 1000 ms/);
    expect(await titles(sys, "limited")).toEqual(["Kept"]);
    const status = await ok(sys.client("alice").GET("/v1/rooms/{room_name}/ics/status", onRoomName("limited")));
    expect(status).toMatchObject({ last_result: "error", last_error: slow.error, events_count: 1 });
  });
});
