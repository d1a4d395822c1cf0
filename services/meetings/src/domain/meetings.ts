// Meeting rules: creation from a room's settings, reuse of the current meeting, what each caller
// sees, the join token's permissions, e-mail recipients. Pure: time comes in as `now`.
import {
  Meeting,
  MeetingState,
  type CalendarEventForMeeting,
  type CalendarMetadata,
  type Caller,
  type EmailRecipient,
  type Platform,
  type RecordingTrigger,
  type RecordingType,
  type RoomMode,
} from "@scribe/contracts";
import type { z } from "zod";

/** Ad-hoc and calendar meetings end 8 h after their start (behaviour §9.3). */
export const MEETING_LENGTH_MS = 8 * 3600 * 1000;

/** The meetings service's copy of a room (from ROOMS events). */
export interface RoomRecord {
  id: string;
  name: string;
  user_id: string;
  is_shared: boolean;
  platform: Platform;
  is_locked: boolean;
  room_mode: z.infer<typeof RoomMode>;
  recording_type: z.infer<typeof RecordingType>;
  recording_trigger: z.infer<typeof RecordingTrigger>;
  skip_consent: boolean;
  store_video: boolean;
  version: number;
  deleted: boolean;
}

/** What the platform answered when the meeting was created there. */
export interface PlatformMeeting {
  meetingId: string;
  roomName: string;
  roomUrl: string;
  hostRoomUrl: string;
}

export interface NewMeetingInput {
  room: RoomRecord;
  created: PlatformMeeting;
  now: Date;
  startDate: Date;
  endDate: Date;
  calendar?: { eventId: string; metadata: CalendarMetadata; scheduledEnd: Date };
}

export function newMeetingState({ room, created, now, startDate, endDate, calendar }: NewMeetingInput): MeetingState {
  return MeetingState.parse({
    id: created.meetingId,
    room_name: created.roomName,
    room_url: created.roomUrl,
    host_room_url: created.hostRoomUrl,
    start_date: startDate.toISOString(),
    end_date: endDate.toISOString(),
    user_id: null,
    room_id: room.id,
    // The room's settings are copied: a later change of the room starts a new meeting (§3.1).
    is_locked: room.is_locked,
    room_mode: room.room_mode,
    recording_type: room.recording_type,
    recording_trigger: room.recording_trigger,
    num_clients: 0,
    is_active: true,
    calendar_event_id: calendar?.eventId ?? null,
    calendar_metadata: calendar?.metadata ?? null,
    platform: room.platform,
    daily_composed_video_s3_key: null,
    daily_composed_video_duration: null,
    store_video: room.store_video,
    version: 1,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    scribe_room_name: room.name,
    room_owner_id: room.user_id,
    email_recipients: [],
    deactivated_at: null,
    deactivation_reason: null,
  });
}

/** Calendar meetings start at the event and stay joinable 8 h (or until the event ends, if later). */
export function calendarMeetingTimes(event: Pick<CalendarEventForMeeting, "start" | "end">): {
  start: Date;
  end: Date;
  scheduledEnd: Date;
} {
  const start = new Date(event.start);
  const scheduledEnd = new Date(event.end);
  const end = new Date(Math.max(start.getTime() + MEETING_LENGTH_MS, scheduledEnd.getTime()));
  return { start, end, scheduledEnd };
}

export function calendarMetadataOf(event: CalendarEventForMeeting): CalendarMetadata {
  return {
    title: event.title,
    description: event.description,
    attendees: event.attendees,
    start_time: new Date(event.start).toISOString(),
    end_time: new Date(event.end).toISOString(),
    ics_uid: event.ics_uid,
    location: event.location,
  };
}

/** The current meeting is reused only while it still runs with the room's current settings (§3.1). */
export function matchesRoomSettings(meeting: MeetingState, room: RoomRecord): boolean {
  return (
    meeting.is_locked === room.is_locked &&
    meeting.room_mode === room.room_mode &&
    meeting.recording_type === room.recording_type &&
    meeting.recording_trigger === room.recording_trigger &&
    meeting.platform === room.platform &&
    meeting.store_video === room.store_video
  );
}

export function isRoomOwner(room: Pick<RoomRecord, "user_id">, caller: Caller): boolean {
  return caller.userId !== null && caller.userId === room.user_id;
}

/** What the meetings service knows about a caller's presence in one meeting. */
export interface Presence {
  /** A signed-in caller asked Scribe to join (join grant) or the platform reported their user id. */
  userJoined: boolean;
  /** A participant without a Scribe identity (a guest) is in the call right now. */
  guestInCall: boolean;
}

/**
 * Who may speak for the meeting's participants (add themselves as an e-mail recipient, answer the
 * consent question): the room's owner, a signed-in caller who joined it, and an anonymous caller
 * while a guest is in the call. Knowing a room's name is not enough (issue 15.4).
 */
export function joinedMeeting(room: Pick<RoomRecord, "user_id">, caller: Caller, presence: Presence): boolean {
  if (caller.via === "internal" || isRoomOwner(room, caller)) return true;
  return caller.userId !== null ? presence.userJoined : presence.guestInCall;
}

/** The room owner and other services (internal callers) see a meeting in full. */
export function seesFullMeeting(room: Pick<RoomRecord, "user_id">, caller: Caller): boolean {
  return caller.via === "internal" || isRoomOwner(room, caller);
}

/**
 * A meeting as `caller` may see it. One rule for every meeting response (the reference has three,
 * api.md §4 quirk 6): the host URL only for the room owner, whatever the platform or room sharing;
 * calendar description and attendees only for the owner (title and schedule for everyone).
 */
export function meetingFor(state: MeetingState, full: boolean): Meeting {
  const meeting = Meeting.parse(state);
  if (full) return meeting;
  return {
    ...meeting,
    host_room_url: "",
    calendar_metadata: meeting.calendar_metadata && { ...meeting.calendar_metadata, description: null, attendees: null },
  };
}

export type JoinRefusal = "Meeting is not active" | "Meeting has ended";

/** Join checks only the active flag and the end: a calendar meeting can be joined before its start (§3.4). */
export function joinRefusal(meeting: Pick<MeetingState, "is_active" | "end_date">, now: Date): JoinRefusal | null {
  if (!meeting.is_active) return "Meeting is not active";
  if (new Date(meeting.end_date).getTime() <= now.getTime()) return "Meeting has ended";
  return null;
}

/** The platform's recording UI is shown when recording is local, or cloud without Scribe's consent question. */
export function enableRecordingUi(meeting: Pick<MeetingState, "recording_type">, room: Pick<RoomRecord, "skip_consent">): boolean {
  return meeting.recording_type === "local" || (meeting.recording_type === "cloud" && room.skip_consent);
}

/** `url` with query parameter `name` added or replaced. */
export function withQueryParam(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}

/**
 * Add a recipient unless the address is already listed (compared ignoring letter case, unlike the
 * reference); an existing entry keeps its include_link.
 */
export function addEmailRecipient(
  list: EmailRecipient[],
  email: string,
  includeLink: boolean,
): { list: EmailRecipient[]; added: EmailRecipient | null } {
  if (list.some((r) => r.email.toLowerCase() === email.toLowerCase())) return { list, added: null };
  const added = { email, include_link: includeLink };
  return { list: [...list, added], added };
}

/** Stored recipients; legacy plain-string entries (reference data) read as `{email, include_link: true}`. */
export function normalizeRecipients(raw: unknown): EmailRecipient[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((r): EmailRecipient[] => {
    if (typeof r === "string") return [{ email: r, include_link: true }];
    if (r && typeof r === "object" && typeof (r as { email?: unknown }).email === "string") {
      const { email, include_link } = r as { email: string; include_link?: unknown };
      return [{ email, include_link: include_link !== false }];
    }
    return [];
  });
}
