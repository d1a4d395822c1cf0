// The calendar rules, pure: which events belong to a room, attendees in every shape, reading a feed
// (time zones, all-day, recurrences with exclusions and moved instances), what a sync writes, the
// schedule, and the early-join and upcoming windows.
import icalGen, { ICalAttendeeStatus, ICalEventRepeatingFreq } from "ical-generator";
import { describe, expect, it } from "vitest";
import { parseAttendees } from "../src/domain/attendees";
import { eventKey, planEventWrites, type StoredEvent } from "../src/domain/event-writes";
import { FeedError, parseFeed, rawEventBlocks, type FeedEvent } from "../src/domain/feed";
import { locationMatchesRoom, roomUiUrl } from "../src/domain/matching";
import { earlyJoinRefusal, precreateRange, upcomingRange } from "../src/domain/meetings";
import { feedRequestUrl, isDue, jitterMs, mayBeUnchanged, nextSyncAt, scheduleAfterRoomChange, syncWindow } from "../src/domain/scheduling";

const NOW = new Date("2030-01-07T09:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const WINDOW = syncWindow(NOW, 168);
const ROOM = "http://localhost:3000/team";

/** A minimal VCALENDAR around raw VEVENT lines (for shapes the generator cannot produce). */
const calendar = (...events: string[][]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//test//EN",
    ...events.flatMap((e) => ["BEGIN:VEVENT", ...e, "END:VEVENT"]),
    "END:VCALENDAR",
  ].join("\r\n");

describe("matching an event to a room", () => {
  it("matches the room's UI URL ignoring letter case, surrounding spaces and a trailing slash", () => {
    const url = roomUiUrl("http://localhost:3000/", "team");
    expect(url).toBe(ROOM);
    for (const location of [ROOM, "  HTTP://LOCALHOST:3000/Team/ ", `${ROOM}//`]) expect(locationMatchesRoom(location, url)).toBe(true);
  });

  it("does not pick up another room whose name starts the same, nor partial or embedded URLs", () => {
    for (const location of ["http://localhost:3000/team-2", "localhost:3000/team", "/team", "team", `Room: ${ROOM}`, `${ROOM}?x=1`, ""]) {
      expect(locationMatchesRoom(location, ROOM), location).toBe(false);
    }
    expect(locationMatchesRoom(null, ROOM)).toBe(false);
  });
});

describe("attendees", () => {
  it("reads one attendee given as an object, with mailto: stripped whatever its case", () => {
    expect(
      parseAttendees(
        { params: { CN: "Alice", PARTSTAT: "ACCEPTED", ROLE: "REQ-PARTICIPANT" }, val: "MAILTO:alice@example.com" },
        undefined,
      ),
    ).toEqual([{ email: "alice@example.com", name: "Alice", status: "ACCEPTED", role: "REQ-PARTICIPANT" }]);
  });

  it("reads several attendees given as an array, plain strings included, and lists the organizer last", () => {
    const attendees = parseAttendees(
      [
        { params: { PARTSTAT: "ACCEPTED" }, val: "mailto:a@example.com" },
        { params: { PARTSTAT: "DECLINED", CN: "Bea" }, val: "Mailto:b@example.com" },
        { params: { PARTSTAT: "TENTATIVE" }, val: "MAILTO:c@example.com" },
        "mailto:d@example.com",
      ],
      { params: { CN: "Olga" }, val: "mailto:olga@example.com" },
    );
    expect(attendees).toEqual([
      { email: "a@example.com", name: null, status: "ACCEPTED", role: null },
      { email: "b@example.com", name: "Bea", status: "DECLINED", role: null },
      { email: "c@example.com", name: null, status: "TENTATIVE", role: null },
      { email: "d@example.com", name: null, status: null, role: null },
      { email: "olga@example.com", name: "Olga", status: null, role: "ORGANIZER" },
    ]);
  });

  it("splits one ATTENDEE holding many comma-separated addresses into one attendee each (the attendee parsing bug)", () => {
    const addresses = Array.from({ length: 29 }, (_, i) => `person${i}@example.com`);
    const feed = calendar([
      "UID:bug-1",
      "DTSTART:20300107T100000Z",
      "DTEND:20300107T110000Z",
      "SUMMARY:Many",
      `LOCATION:${ROOM}`,
      `ATTENDEE;CN=First;PARTSTAT=ACCEPTED:MAILTO:${addresses.join(",MAILTO:")}`,
      "ORGANIZER;CN=Org:mailto:org@example.com",
    ]);
    const [event] = parseFeed(feed, WINDOW);
    expect(event!.attendees).toHaveLength(30);
    expect(event!.attendees.every((a) => (a.email ?? "").includes("@") && (a.email ?? "").length > 1)).toBe(true);
    expect(event!.attendees[0]).toEqual({ email: "person0@example.com", name: "First", status: "ACCEPTED", role: null });
    expect(event!.attendees[1]).toEqual({ email: "person1@example.com", name: null, status: null, role: null });
    expect(event!.attendees.at(-1)).toMatchObject({ email: "org@example.com", role: "ORGANIZER" });
  });

  it("reads the attendees of a generated feed: one, several, each status", () => {
    const cal = icalGen();
    const one = cal.createEvent({ id: "one", start: at(60), end: at(90), summary: "One", location: ROOM });
    one.createAttendee({ email: "solo@example.com", name: "Solo", status: ICalAttendeeStatus.TENTATIVE });
    const many = cal.createEvent({
      id: "many",
      start: at(120),
      end: at(150),
      summary: "Many",
      location: ROOM,
      organizer: { name: "Org", email: "org@example.com" },
    });
    many.createAttendee({ email: "yes@example.com", status: ICalAttendeeStatus.ACCEPTED });
    many.createAttendee({ email: "no@example.com", status: ICalAttendeeStatus.DECLINED });
    many.createAttendee({ email: "maybe@example.com", status: ICalAttendeeStatus.TENTATIVE });
    const [e1, e2] = parseFeed(cal.toString(), WINDOW);
    expect(e1!.attendees).toEqual([{ email: "solo@example.com", name: "Solo", status: "TENTATIVE", role: "REQ-PARTICIPANT" }]);
    expect(e2!.attendees.map((a) => [a.email, a.status ?? a.role])).toEqual([
      ["yes@example.com", "ACCEPTED"],
      ["no@example.com", "DECLINED"],
      ["maybe@example.com", "TENTATIVE"],
      ["org@example.com", "ORGANIZER"],
    ]);
  });
});

describe("reading a feed", () => {
  it("maps UID, SUMMARY, DESCRIPTION and LOCATION, keeps events overlapping the window and skips cancelled ones", () => {
    const cal = icalGen();
    cal.createEvent({
      id: "ongoing",
      start: at(-120),
      end: at(30),
      summary: "Started two hours ago",
      location: ROOM,
      description: "Agenda",
    });
    cal.createEvent({ id: "ended", start: at(-180), end: at(-61), summary: "Over an hour ago" });
    cal.createEvent({ id: "soon", start: at(15), end: at(45), summary: "Soon", location: "http://localhost:3000/other" });
    cal.createEvent({ id: "beyond", start: at(8 * 24 * 60), end: at(8 * 24 * 60 + 30), summary: "Beyond the horizon" });
    cal.createEvent({ id: "cancelled", start: at(60), end: at(90), summary: "Off", status: "CANCELLED" as never });
    const events = parseFeed(cal.toString(), WINDOW);
    expect(events.map((e) => e.uid)).toEqual(["ongoing", "soon"]);
    expect(events[0]).toMatchObject({
      uid: "ongoing",
      recurrenceId: "",
      title: "Started two hours ago",
      description: "Agenda",
      location: ROOM,
      start: at(-120),
      end: at(30),
    });
    expect(events[1]!.description).toBeNull();
  });

  it("converts zoned times to UTC, reads floating times and all-day dates as UTC whatever the host's zone, and gives an event without end one hour", () => {
    const feed = calendar(
      ["UID:berlin", "DTSTART;TZID=Europe/Berlin:20300107T110000", "DTEND;TZID=Europe/Berlin:20300107T120000", "SUMMARY:Berlin"],
      ["UID:newyork", "DTSTART;TZID=America/New_York:20300107T080000", "DURATION:PT45M", "SUMMARY:New York"],
      ["UID:floating", "DTSTART:20300107T140000", "SUMMARY:Floating, no end"],
      ["UID:allday", "DTSTART;VALUE=DATE:20300108", "SUMMARY:All day"],
    );
    const saved = process.env.TZ;
    try {
      for (const tz of ["UTC", "America/Los_Angeles", "Asia/Tokyo"]) {
        process.env.TZ = tz;
        const byUid = Object.fromEntries(parseFeed(feed, WINDOW).map((e) => [e.uid, [e.start.toISOString(), e.end.toISOString()]]));
        expect(byUid, tz).toEqual({
          berlin: ["2030-01-07T10:00:00.000Z", "2030-01-07T11:00:00.000Z"],
          newyork: ["2030-01-07T13:00:00.000Z", "2030-01-07T13:45:00.000Z"],
          floating: ["2030-01-07T14:00:00.000Z", "2030-01-07T15:00:00.000Z"],
          allday: ["2030-01-08T00:00:00.000Z", "2030-01-09T00:00:00.000Z"],
        });
      }
    } finally {
      process.env.TZ = saved;
    }
  });

  it("expands a recurring event inside the window, without its excluded date and with its moved instance at the new time", () => {
    const cal = icalGen();
    const first = new Date("2030-01-07T10:00:00Z");
    const day = 86_400_000;
    cal.createEvent({
      id: "standup",
      start: first,
      end: new Date(first.getTime() + 30 * 60_000),
      summary: "Standup",
      location: ROOM,
      repeating: { freq: ICalEventRepeatingFreq.DAILY, count: 30, exclude: [new Date(first.getTime() + day)] },
    });
    cal.createEvent({
      id: "standup",
      recurrenceId: new Date(first.getTime() + 2 * day),
      start: new Date(first.getTime() + 2 * day + 3 * 3600_000),
      end: new Date(first.getTime() + 2 * day + 4 * 3600_000),
      summary: "Standup (moved)",
      location: ROOM,
    });
    const events = parseFeed(cal.toString(), syncWindow(NOW, 4 * 24));
    expect(events.map((e) => [e.start.toISOString(), e.title, e.recurrenceId])).toEqual([
      ["2030-01-07T10:00:00.000Z", "Standup", "2030-01-07T10:00:00.000Z"],
      // 8 January is excluded.
      ["2030-01-09T13:00:00.000Z", "Standup (moved)", "2030-01-09T10:00:00.000Z"],
      ["2030-01-10T10:00:00.000Z", "Standup", "2030-01-10T10:00:00.000Z"],
    ]);
    expect(new Set(events.map((e) => e.uid))).toEqual(new Set(["standup"]));
  });

  it("finds an instance moved into the window from outside it, and leaves out a cancelled instance", () => {
    const feed = calendar(
      [
        "UID:weekly",
        "DTSTART:20300101T100000Z",
        "DTEND:20300101T110000Z",
        "RRULE:FREQ=WEEKLY;COUNT=4",
        "SUMMARY:Weekly",
        `LOCATION:${ROOM}`,
      ],
      // The 15 January instance moved back into the window (7–8 January).
      ["UID:weekly", "RECURRENCE-ID:20300115T100000Z", "DTSTART:20300107T160000Z", "DTEND:20300107T170000Z", "SUMMARY:Weekly (early)"],
      // The 8 January instance is cancelled.
      [
        "UID:weekly",
        "RECURRENCE-ID:20300108T100000Z",
        "DTSTART:20300108T100000Z",
        "DTEND:20300108T110000Z",
        "STATUS:CANCELLED",
        "SUMMARY:Weekly",
      ],
    );
    const events = parseFeed(feed, syncWindow(NOW, 48));
    expect(events.map((e) => [e.start.toISOString(), e.title, e.recurrenceId])).toEqual([
      ["2030-01-07T16:00:00.000Z", "Weekly (early)", "2030-01-15T10:00:00.000Z"],
    ]);
  });

  it("gives an event without UID a key that stays the same across fetches", () => {
    const feed = calendar(["DTSTART:20300107T100000Z", "SUMMARY:No uid", `LOCATION:${ROOM}`]);
    const [a] = parseFeed(feed, WINDOW);
    const [b] = parseFeed(feed, WINDOW);
    expect(a!.uid).toMatch(/^scribe-no-uid-[0-9a-f]{40}$/);
    expect(b!.uid).toBe(a!.uid);
  });

  it("keeps each event's VEVENT text without its DTSTAMP", () => {
    const feed = calendar([
      "UID:raw-1",
      "DTSTAMP:20300101T000000Z",
      "DTSTART:20300107T100000Z",
      "SUMMARY:A long summary that the",
      " generator folded",
    ]);
    expect(rawEventBlocks(feed).get("raw-1")).toBe(
      ["BEGIN:VEVENT", "UID:raw-1", "DTSTART:20300107T100000Z", "SUMMARY:A long summary that thegenerator folded", "END:VEVENT"].join("\n"),
    );
  });

  it("refuses text that is not a calendar", () => {
    expect(() => parseFeed("<html>Please sign in</html>", WINDOW)).toThrow(FeedError);
    expect(() => parseFeed("<html>Please sign in</html>", WINDOW)).toThrow("The feed is not an iCalendar file (no BEGIN:VCALENDAR)");
  });
});

describe("what a sync writes", () => {
  const feedEvent = (uid: string, minutes: number, patch: Partial<FeedEvent> = {}): FeedEvent => ({
    uid,
    recurrenceId: "",
    title: uid,
    description: null,
    location: ROOM,
    start: at(minutes),
    end: at(minutes + 30),
    attendees: [],
    raw: null,
    ...patch,
  });
  const stored = (e: FeedEvent, patch: Partial<StoredEvent> = {}): StoredEvent => ({
    id: `id-${e.uid}`,
    uid: e.uid,
    recurrenceId: e.recurrenceId,
    title: e.title,
    description: e.description,
    location: e.location,
    start: e.start,
    end: e.end,
    attendees: e.attendees,
    isDeleted: false,
    ...patch,
  });

  it("creates new events, updates changed ones, restores deleted ones and leaves identical ones alone", () => {
    const same = feedEvent("same", 60);
    const changed = feedEvent("changed", 90);
    const back = feedEvent("back", 120);
    const fresh = feedEvent("fresh", 150);
    const writes = planEventWrites(
      [stored(same), stored(changed, { title: "old title" }), stored(back, { isDeleted: true })],
      // A different raw text alone (a new DTSTAMP) is not a change.
      [{ ...same, raw: "BEGIN:VEVENT\nDTSTAMP:…" }, changed, back, fresh],
      NOW,
    );
    expect(writes.create.map((e) => e.uid)).toEqual(["fresh"]);
    expect(writes.update.map((u) => u.id)).toEqual(["id-changed", "id-back"]);
    expect(writes.remove).toEqual([]);
  });

  it("soft-deletes future events gone from the feed but never events that have started", () => {
    const future = feedEvent("future", 60);
    const started = feedEvent("started", -10);
    const writes = planEventWrites([stored(future), stored(started), stored(feedEvent("gone-already", 90), { isDeleted: true })], [], NOW);
    expect(writes.remove).toEqual(["id-future"]);
  });

  it("tells instances of a series apart by their original start", () => {
    const a = feedEvent("series", 60, { recurrenceId: at(60).toISOString() });
    const b = feedEvent("series", 24 * 60 + 60, { recurrenceId: at(24 * 60 + 60).toISOString() });
    expect(eventKey(a.uid, a.recurrenceId)).not.toBe(eventKey(b.uid, b.recurrenceId));
    expect(planEventWrites([stored(a)], [a, b], NOW).create).toEqual([b]);
  });
});

describe("the sync schedule", () => {
  it("is due when never synced or once the interval has passed since the last attempt", () => {
    expect(isDue(null, 300, NOW)).toBe(true);
    expect(isDue(at(-100 / 60), 300, NOW)).toBe(false);
    expect(isDue(at(-400 / 60), 300, NOW)).toBe(true);
    expect(isDue(at(-5), 300, NOW)).toBe(true);
  });

  it("spreads runs by a jitter of at most a tenth of the interval and at most a minute", () => {
    expect(jitterMs(300, () => 0)).toBe(0);
    expect(jitterMs(300, () => 0.999)).toBeLessThan(30_000);
    expect(jitterMs(3600, () => 0.999)).toBeLessThan(60_000);
    expect(jitterMs(3600, () => 0.999)).toBeGreaterThan(59_000);
    expect(nextSyncAt(NOW, 60, () => 0.5)).toEqual(new Date(NOW.getTime() + 63_000));
  });

  it("lets an identical feed end the run unchanged only while the stored events come from the same URL, the same room URL and still reach a day ahead", () => {
    const stored = { syncedFeedUrl: "https://cal.example.com/a.ics", matchedRoomUrl: ROOM, contentHash: "abc", windowEnd: at(7 * 24 * 60) };
    const current = { feedUrl: "https://cal.example.com/a.ics", roomUrl: ROOM, now: NOW };
    expect(mayBeUnchanged(stored, current)).toBe(true);
    expect(mayBeUnchanged({ ...stored, contentHash: null }, current)).toBe(false);
    expect(mayBeUnchanged(stored, { ...current, feedUrl: "https://cal.example.com/b.ics" })).toBe(false);
    expect(mayBeUnchanged(stored, { ...current, roomUrl: "http://localhost:3000/renamed" })).toBe(false);
    expect(mayBeUnchanged({ ...stored, windowEnd: at(23 * 60) }, current)).toBe(false);
  });

  it("syncs a room soon when it starts syncing or its feed or name changes, reschedules when the interval changes", () => {
    const settings = { name: "team", ics_url: "https://cal.example.com/a.ics", ics_enabled: true, ics_fetch_interval: 300 };
    const prev = { ...settings, lastAttemptAt: at(-2), nextSyncAt: at(3) };
    const zero = () => 0;
    expect(scheduleAfterRoomChange(null, settings, NOW, zero)).toEqual(NOW);
    expect(scheduleAfterRoomChange({ ...prev, ics_enabled: false, nextSyncAt: null }, settings, NOW, zero)).toEqual(NOW);
    expect(scheduleAfterRoomChange(prev, { ...settings, ics_url: "https://cal.example.com/b.ics" }, NOW, zero)).toEqual(NOW);
    expect(scheduleAfterRoomChange(prev, { ...settings, name: "team-renamed" }, NOW, zero)).toEqual(NOW);
    expect(scheduleAfterRoomChange(prev, { ...settings, ics_fetch_interval: 60 }, NOW, zero)).toEqual(at(-1));
    expect(scheduleAfterRoomChange(prev, { ...settings }, NOW, zero)).toBeUndefined();
    expect(scheduleAfterRoomChange(prev, { ...settings, ics_enabled: false }, NOW, zero)).toBeNull();
    expect(scheduleAfterRoomChange(prev, { ...settings, ics_url: null }, NOW, zero)).toBeNull();
  });

  it("fetches webcal:// feeds over https", () => {
    expect(feedRequestUrl("webcal://cal.example.com/a.ics")).toBe("https://cal.example.com/a.ics");
    expect(feedRequestUrl("http://cal.example.com/a.ics")).toBe("http://cal.example.com/a.ics");
  });
});

describe("joining and listing calendar events", () => {
  const event = { start: at(0), end: at(60) };
  it("lets an event be joined from 5 minutes before its start until its end", () => {
    const seconds = (s: number) => new Date(NOW.getTime() + s * 1000);
    expect(earlyJoinRefusal(event, seconds(-301))).toBe("Meeting has not started yet");
    expect(earlyJoinRefusal(event, seconds(-300))).toBeNull();
    expect(earlyJoinRefusal(event, seconds(-299))).toBeNull();
    expect(earlyJoinRefusal(event, seconds(30 * 60))).toBeNull();
    expect(earlyJoinRefusal(event, seconds(60 * 60))).toBe("Meeting has ended");
  });

  it("counts events happening now as upcoming", () => {
    expect(upcomingRange(NOW, 120)).toEqual({ startsBy: at(120), endsAfter: NOW });
  });

  it("makes meetings ahead for events opening for joining and those started up to 6 minutes ago", () => {
    expect(precreateRange(NOW)).toEqual({ startsAfter: at(-6), startsBy: at(5), endsAfter: NOW });
  });
});
