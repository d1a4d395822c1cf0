// Meeting commands over request/reply (api.md §2.5 create meeting, §2.7 join, §2.8): validate,
// decide, store the change and its event in one transaction.
import { randomUUID } from "node:crypto";
import { makeEvent, meetingsOps, type Caller, type MeetingState } from "@scribe/contracts";
import {
  BadRequest,
  Forbidden,
  NotFound,
  Unauthorized,
  UpstreamFailed,
  emit,
  isAppError,
  type Db,
  type Clock,
  type RpcServer,
  type Sql,
} from "@scribe/kit";
import { SOURCE, changed, deactivateMeeting } from "./changes";
import {
  MEETING_LENGTH_MS,
  addEmailRecipient,
  calendarMeetingTimes,
  calendarMetadataOf,
  enableRecordingUi,
  isRoomOwner,
  joinRefusal,
  joinedMeeting,
  matchesRoomSettings,
  meetingFor,
  newMeetingState,
  seesFullMeeting,
  type RoomRecord,
} from "./domain/meetings";
import type { CreationPlan, MeetingCreation } from "./creation";
import type { Platforms } from "./platforms";
import {
  activeMeetingsOfRoom,
  guestInCall,
  insertMeeting,
  meetingById,
  meetingHasDenial,
  newestMeetingOfCalendarEvent,
  recordConsent,
  recordJoinGrant,
  updateMeeting,
  userJoinedMeeting,
} from "./store";
import { currentRoomByName, roomById, roomByName } from "./room-copy";

async function roomNamed(db: Db, name: string, now: Date): Promise<RoomRecord> {
  const room = await roomByName(db, name, now);
  if (!room) throw NotFound("Room not found");
  return room;
}

async function existingMeeting(db: Db, id: string, opts: { forUpdate?: boolean } = {}): Promise<MeetingState> {
  const meeting = await meetingById(db, id, opts);
  if (!meeting) throw NotFound("Meeting not found");
  return meeting;
}

/** A meeting is reached through its room's name: another room's meeting is "not found" (§3.3). */
async function meetingInRoom(db: Db, room: RoomRecord, meetingId: string): Promise<MeetingState> {
  const meeting = await meetingById(db, meetingId);
  if (!meeting || meeting.room_id !== room.id) throw NotFound("Meeting not found");
  return meeting;
}

export function registerCommands(rpc: RpcServer, sql: Sql, platforms: Platforms, creation: MeetingCreation, clock: Clock): void {
  /** The meeting on the room's platform: called under the room's creation claim, no transaction open. */
  async function createOnPlatform(
    room: RoomRecord,
    now: Date,
    times: { start: Date; end: Date },
    calendar?: Parameters<typeof newMeetingState>[0]["calendar"],
  ): Promise<MeetingState> {
    const created = await platforms.of(room.platform).createMeeting({
      roomName: room.name,
      endDate: times.end,
      isLocked: room.is_locked,
      roomMode: room.room_mode,
      recordingType: room.recording_type,
      recordingTrigger: room.recording_trigger,
      now,
    });
    return newMeetingState({ room, created, now, startDate: times.start, endDate: times.end, calendar });
  }

  const recordCreated = (now: Date) => async (tx: Db, meeting: MeetingState) => {
    await insertMeeting(tx, meeting);
    await emit(tx, makeEvent("meeting.created", meeting, { source: SOURCE, time: now }));
  };

  rpc.handle(meetingsOps.create, async ({ caller, room_name, allow_duplicated }) => {
    const now = clock();
    const room = await currentRoomByName(sql, room_name, now);
    if (!room) throw NotFound("Room not found");
    const meeting = await creation.inRoom(
      room.id,
      async (db): Promise<CreationPlan<MeetingState>> => {
        // The room as it is now: its settings decide reuse.
        const current = (await roomById(db, room.id, now)) ?? room;
        if (!allow_duplicated) {
          const [newest] = await activeMeetingsOfRoom(db, current.id, now);
          // A meeting whose settings no longer match the room stays active; a new one is made (§3.1).
          if (newest && matchesRoomSettings(newest, current)) return { reuse: newest };
        }
        return { create: () => createOnPlatform(current, now, { start: now, end: new Date(now.getTime() + MEETING_LENGTH_MS) }) };
      },
      recordCreated(now),
    );
    return meetingFor(meeting, seesFullMeeting(room, caller));
  });

  rpc.handle(meetingsOps.createCalendarMeeting, async ({ caller, room_id, calendar_event, replace_inactive }) => {
    const now = clock();
    const room = await roomById(sql, room_id, now);
    if (!room) throw NotFound("Room not found");
    const meeting = await creation.inRoom(
      room.id,
      async (db): Promise<CreationPlan<MeetingState>> => {
        const existing = await newestMeetingOfCalendarEvent(db, calendar_event.id);
        // Idempotent per event; an inactive meeting is never reactivated, only replaced when asked.
        if (existing && (existing.is_active || !replace_inactive)) return { reuse: existing };
        const times = calendarMeetingTimes(calendar_event);
        const current = (await roomById(db, room.id, now)) ?? room;
        return {
          create: () =>
            createOnPlatform(current, now, times, {
              eventId: calendar_event.id,
              metadata: calendarMetadataOf(calendar_event),
              scheduledEnd: times.scheduledEnd,
            }),
        };
      },
      recordCreated(now),
    );
    return meetingFor(meeting, seesFullMeeting(room, caller));
  });

  rpc.handle(meetingsOps.join, async ({ caller, room_name, meeting_id, display_name }) => {
    const now = clock();
    const room = await roomNamed(sql, room_name, now);
    const meeting = await meetingInRoom(sql, room, meeting_id);
    const refusal = joinRefusal(meeting, now);
    if (refusal) throw BadRequest(refusal);
    const shown = meetingFor(meeting, seesFullMeeting(room, caller));
    // Guests join with the room URL as it is (a locked Daily room makes them knock).
    if (caller.userId === null) return shown;
    // Remember who joined through Scribe: when the platform reports this user id, it is stored.
    await recordJoinGrant(sql, { meeting_id: meeting.id, user_id: caller.userId, display_name, created_at: now });
    const roomUrl = await platforms.of(meeting.platform).joinUrl(meeting, {
      userId: caller.userId,
      userName: display_name,
      isOwner: isRoomOwner(room, caller),
      enableRecordingUi: enableRecordingUi(meeting, room),
    });
    return { ...shown, room_url: roomUrl };
  });

  rpc.handle(meetingsOps.deactivate, async ({ caller, meeting_id }) => {
    if (caller.userId === null) throw Unauthorized();
    const now = clock();
    await sql.begin(async (tx) => {
      const meeting = await existingMeeting(tx, meeting_id, { forUpdate: true });
      // Already inactive: nothing to change, so nothing to authorise (reference behaviour).
      if (!meeting.is_active) return;
      const room = await roomById(tx, meeting.room_id, now);
      if (!room) throw NotFound("Room not found");
      if (!isRoomOwner(room, caller)) throw Forbidden("Only the room owner can deactivate meetings");
      await deactivateMeeting(tx, meeting, "owner", now);
    });
    return { status: "success" as const, meeting_id };
  });

  /** Refuses a caller who did not join the meeting (see `joinedMeeting`); the meeting's room. */
  async function requireJoined(tx: Db, meeting: MeetingState, caller: Caller, refusal: string, now: Date): Promise<RoomRecord> {
    const room = await roomById(tx, meeting.room_id, now);
    if (!room) throw NotFound("Room not found");
    const presence = {
      userJoined: caller.userId !== null && (await userJoinedMeeting(tx, meeting.id, caller.userId)),
      guestInCall: caller.userId === null && (await guestInCall(tx, meeting.id)),
    };
    if (!joinedMeeting(room, caller, presence)) throw Forbidden(refusal);
    return room;
  }

  rpc.handle(meetingsOps.consent, async ({ caller, meeting_id, consent_given }) => {
    const now = clock();
    const consent_id = await sql.begin(async (tx) => {
      const meeting = await existingMeeting(tx, meeting_id);
      // A stranger's "no" would delete the owner's audio: only participants answer.
      const room = await requireJoined(tx, meeting, caller, "Only participants of the meeting can answer the consent question", now);
      const row = await recordConsent(tx, {
        id: randomUUID(),
        meeting_id,
        user_id: caller.userId,
        consent_given,
        consent_timestamp: now,
      });
      const data = {
        consent_id: row.id,
        meeting_id,
        room_id: meeting.room_id,
        user_id: row.user_id,
        consent_given: row.consent_given,
        consent_timestamp: row.consent_timestamp.toISOString(),
        any_denial: await meetingHasDenial(tx, meeting_id),
        skip_consent: room.skip_consent,
      };
      await emit(tx, makeEvent(consent_given ? "meeting.consent.given" : "meeting.consent.withdrawn", data, { source: SOURCE, time: now }));
      return row.id;
    });
    return { status: "success" as const, consent_id };
  });

  rpc.handle(meetingsOps.addEmailRecipient, async ({ caller, meeting_id, email }) => {
    const now = clock();
    const list = await sql.begin(async (tx) => {
      const meeting = await existingMeeting(tx, meeting_id, { forUpdate: true });
      // The recipient receives what was said: only someone who was there may ask for it.
      await requireJoined(tx, meeting, caller, "Only participants of the meeting can add themselves as e-mail recipients", now);
      // Signed-in callers get the transcript link; anonymous ones only the text (reference rule).
      const { list, added } = addEmailRecipient(meeting.email_recipients, email, caller.userId !== null);
      if (!added) return list;
      const next = changed(meeting, { email_recipients: list }, now);
      await updateMeeting(tx, next);
      await emit(tx, makeEvent("meeting.email_recipient.added", { meeting: next, recipient: added }, { source: SOURCE, time: now }));
      return list;
    });
    return { status: "success" as const, email_recipients: list };
  });

  rpc.handle(meetingsOps.startRecording, async ({ meeting_id, type, instance_id }) => {
    const meeting = await existingMeeting(sql, meeting_id);
    try {
      return await platforms.of(meeting.platform).startRecording(meeting, type, instance_id);
    } catch (e) {
      if (isAppError(e)) throw e;
      // The platform failed, not Scribe: a bad gateway (the web client retries on any failure).
      throw UpstreamFailed(`Failed to start recording: ${(e as Error).message}`, e);
    }
  });
}
