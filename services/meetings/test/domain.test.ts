// Pure meeting rules: presence reconciliation, recordings (Daily keys, time matching), what callers
// see, join checks, e-mail recipients.
import type { MeetingState } from "@scribe/contracts";
import { describe, expect, it } from "vitest";
import {
  addEmailRecipient,
  calendarMeetingTimes,
  enableRecordingUi,
  joinRefusal,
  matchesRoomSettings,
  meetingFor,
  normalizeRecipients,
  withQueryParam,
  type RoomRecord,
} from "../src/domain/meetings";
import { reconcilePresence, scribeUserId } from "../src/domain/presence";
import { distinctParticipants, matchMeetingByTime, parseDailyTrackKey, trackOffsetSeconds } from "../src/domain/recordings";
import { dailyRoomName } from "../src/platforms/daily";

const T = new Date("2026-03-02T09:00:00Z");
const p = (sessionId: string) => ({ sessionId, userId: null, userName: sessionId, joinedAt: T });

describe("presence reconciliation", () => {
  it("opens a stay for each present participant without one and closes stays of those gone", () => {
    const plan = reconcilePresence(
      [
        { id: "s1", sessionId: "p1" },
        { id: "s2", sessionId: "p2" },
      ],
      { participants: [p("p1"), p("p3")], anyonePresent: true, everUsed: true },
    );
    expect(plan.open.map((x) => x.sessionId)).toEqual(["p3"]);
    expect(plan.close.map((x) => x.id)).toEqual(["s2"]);
  });
  it("closes every open stay when nobody is present (also when the platform no longer knows the room)", () => {
    const plan = reconcilePresence([{ id: "s1", sessionId: "p1" }], { participants: [], anyonePresent: false, everUsed: false });
    expect(plan).toEqual({ open: [], close: [{ id: "s1", sessionId: "p1" }] });
  });
  it("changes nothing when the stays match presence", () => {
    expect(reconcilePresence([{ id: "s1", sessionId: "p1" }], { participants: [p("p1")], anyonePresent: true, everUsed: true })).toEqual({
      open: [],
      close: [],
    });
  });
  it("with a yes/no platform (no participant list) closes stays only when nobody is there", () => {
    const stays = [{ id: "s1", sessionId: "p1" }];
    expect(reconcilePresence(stays, { participants: null, anyonePresent: true, everUsed: true })).toEqual({ open: [], close: [] });
    expect(reconcilePresence(stays, { participants: null, anyonePresent: false, everUsed: true }).close).toEqual(stays);
  });
  it("stores a platform user id only for a user who joined through Scribe signed in", () => {
    expect(scribeUserId("alice", new Set(["alice"]))).toBe("alice");
    expect(scribeUserId("5e2d6aa6-guest-session", new Set(["alice"]))).toBeNull();
    expect(scribeUserId(null, new Set(["alice"]))).toBeNull();
  });
});

describe("recordings", () => {
  const uuid = "5e2d6aa6-5c5a-4b8b-8d57-0b2e3f1f3f3e";
  it("parses Daily raw-tracks keys, with or without folder and extension", () => {
    const k = parseDailyTrackKey(`dom/room-20260302090000/1772442000000-${uuid}-cam-audio-1772442001500`);
    expect(k).toEqual({ recordingStartMs: 1772442000000, participantId: uuid, source: "cam", kind: "audio", trackStartMs: 1772442001500 });
    expect(trackOffsetSeconds(k!)).toBe(1.5);
    expect(parseDailyTrackKey(`1772442000000-${uuid}-cam-video-1772442000000.webm`)?.kind).toBe("video");
    expect(parseDailyTrackKey(`1772442000000-${uuid}-screen-audio-1772442000000`)?.source).toBe("screen");
    expect(parseDailyTrackKey("recording.mp4")).toBeNull();
    expect(parseDailyTrackKey(`123-${uuid}-cam-audio-456`)).toBeNull();
  });
  it("matches a recording to the meeting whose start is closest, within a week either side", () => {
    const m = (id: string, hoursFromT: number) => ({ id, start_date: new Date(T.getTime() + hoursFromT * 3600_000).toISOString() });
    expect(matchMeetingByTime([m("a", -48), m("b", -240), m("c", 240)], T)?.id).toBe("a");
    expect(matchMeetingByTime([m("far", 169)], T)).toBeNull();
    expect(matchMeetingByTime([m("edge", 168)], T)?.id).toBe("edge");
    expect(matchMeetingByTime([m("zzz", 1), m("aaa", -1)], T)?.id).toBe("aaa");
  });
  it("names each platform session once, keeping a name or user id a later stay brought", () => {
    expect(
      distinctParticipants([
        { sessionId: "s1", name: "", userId: null },
        { sessionId: "s2", name: "Bob", userId: null },
        { sessionId: "s1", name: "Alice", userId: "alice" },
      ]),
    ).toEqual([
      { sessionId: "s1", name: "Alice", userId: "alice" },
      { sessionId: "s2", name: "Bob", userId: null },
    ]);
  });
});

const room: RoomRecord = {
  id: "r1",
  name: "standup",
  user_id: "alice",
  is_shared: true,
  platform: "whereby",
  is_locked: false,
  room_mode: "normal",
  recording_type: "cloud",
  recording_trigger: "automatic-2nd-participant",
  skip_consent: false,
  store_video: false,
  version: 3,
  deleted: false,
};
const meeting: MeetingState = {
  id: "m1",
  room_name: "/standup-x",
  room_url: "https://w.example/standup-x",
  host_room_url: "https://w.example/standup-x?roomKey=k",
  start_date: T.toISOString(),
  end_date: new Date(T.getTime() + 8 * 3600_000).toISOString(),
  user_id: null,
  room_id: "r1",
  is_locked: false,
  room_mode: "normal",
  recording_type: "cloud",
  recording_trigger: "automatic-2nd-participant",
  num_clients: 0,
  is_active: true,
  calendar_event_id: "e1",
  calendar_metadata: {
    title: "Weekly",
    description: "secret agenda",
    attendees: [{ email: "a@x", status: "ACCEPTED" }],
    start_time: T.toISOString(),
    end_time: T.toISOString(),
    ics_uid: "uid-1@example.com",
    location: null,
  },
  platform: "whereby",
  daily_composed_video_s3_key: null,
  daily_composed_video_duration: null,
  store_video: false,
  version: 1,
  created_at: T.toISOString(),
  updated_at: T.toISOString(),
  scribe_room_name: "standup",
  room_owner_id: "alice",
  email_recipients: [],
  deactivated_at: null,
  deactivation_reason: null,
};

describe("meetings", () => {
  it("shows the host URL and calendar details to the room owner only, on a shared room too", () => {
    expect(meetingFor(meeting, true)).toMatchObject({
      host_room_url: meeting.host_room_url,
      calendar_metadata: { description: "secret agenda" },
    });
    const other = meetingFor(meeting, false);
    expect(other.host_room_url).toBe("");
    expect(other.calendar_metadata).toEqual({
      title: "Weekly",
      description: null,
      attendees: null,
      start_time: T.toISOString(),
      end_time: T.toISOString(),
      ics_uid: "uid-1@example.com",
      location: null,
    });
    expect(other).not.toHaveProperty("email_recipients");
    expect(other).not.toHaveProperty("version");
  });
  it("reuses the current meeting only while it has the room's settings", () => {
    expect(matchesRoomSettings(meeting, room)).toBe(true);
    for (const change of [
      { is_locked: true },
      { room_mode: "group" as const },
      { recording_type: "none" as const },
      { recording_trigger: "none" as const },
      { platform: "daily" as const },
      { store_video: true },
    ]) {
      expect(matchesRoomSettings(meeting, { ...room, ...change })).toBe(false);
    }
  });
  it("refuses to join an inactive or ended meeting, and allows joining a calendar meeting before its start", () => {
    expect(joinRefusal({ ...meeting, is_active: false }, T)).toBe("Meeting is not active");
    expect(joinRefusal(meeting, new Date(meeting.end_date))).toBe("Meeting has ended");
    const future = { ...meeting, start_date: new Date(T.getTime() + 3600_000).toISOString() };
    expect(joinRefusal(future, T)).toBeNull();
  });
  it("shows the platform's recording UI for local recording, or cloud recording without the consent question", () => {
    expect(enableRecordingUi({ recording_type: "local" }, { skip_consent: false })).toBe(true);
    expect(enableRecordingUi({ recording_type: "cloud" }, { skip_consent: false })).toBe(false);
    expect(enableRecordingUi({ recording_type: "cloud" }, { skip_consent: true })).toBe(true);
    expect(enableRecordingUi({ recording_type: "none" }, { skip_consent: true })).toBe(false);
  });
  it("adds or replaces the token query parameter", () => {
    expect(withQueryParam("https://d.example/r", "t", "abc")).toBe("https://d.example/r?t=abc");
    expect(withQueryParam("https://d.example/r?t=old&x=1", "t", "new")).toBe("https://d.example/r?t=new&x=1");
  });
  it("adds an e-mail recipient once (letter case ignored), keeping the first include_link", () => {
    const first = addEmailRecipient([], "Bob@example.com", false);
    expect(first.list).toEqual([{ email: "Bob@example.com", include_link: false }]);
    expect(addEmailRecipient(first.list, "bob@example.com", true)).toEqual({ list: first.list, added: null });
    expect(normalizeRecipients(["legacy@example.com", { email: "x@example.com", include_link: false }, 3])).toEqual([
      { email: "legacy@example.com", include_link: true },
      { email: "x@example.com", include_link: false },
    ]);
  });
  it("keeps a calendar meeting joinable 8 h from the event's start, or to its end if later", () => {
    expect(calendarMeetingTimes({ start: T.toISOString(), end: new Date(T.getTime() + 1800_000).toISOString() }).end).toEqual(
      new Date(T.getTime() + 8 * 3600_000),
    );
    expect(calendarMeetingTimes({ start: T.toISOString(), end: new Date(T.getTime() + 10 * 3600_000).toISOString() }).end).toEqual(
      new Date(T.getTime() + 10 * 3600_000),
    );
  });
  it("names a Daily room after the Scribe room (characters Daily refuses replaced) and a UTC timestamp", () => {
    expect(dailyRoomName("team.sync+1", T)).toBe("team-sync-1-20260302090000");
    expect(dailyRoomName("a", T, "f00d")).toBe("a-f00d-20260302090000");
  });
});
