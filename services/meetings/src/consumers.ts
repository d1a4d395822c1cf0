// The meetings service's copy of the rooms, from ROOMS events (full state + version: a stale
// state is ignored). A deleted room takes its meetings with it, each announced by meeting.deleted.
import { RecordingTrigger, RecordingType, RoomMode, STREAMS, eventToken, makeEvent, type RoomState, type TranscriptExpired } from "@scribe/contracts";
import { emit, type Tx } from "@scribe/kit";
import type { ServiceRuntime } from "@scribe/kit";
import { SOURCE, changed } from "./changes";
import type { RoomRecord } from "./domain/meetings";
import { deleteMeetings, meetingById, meetingsOfRoom, upsertRoom } from "./store";

export function roomRecordOf(room: RoomState, deleted: boolean): RoomRecord {
  return {
    id: room.id,
    name: room.name,
    user_id: room.user_id,
    is_shared: room.is_shared,
    platform: room.platform,
    is_locked: room.is_locked,
    // The rooms service validates these on write; parsing keeps the types honest.
    room_mode: RoomMode.parse(room.room_mode),
    recording_type: RecordingType.parse(room.recording_type),
    recording_trigger: RecordingTrigger.parse(room.recording_trigger),
    skip_consent: room.skip_consent,
    store_video: room.store_video,
    version: room.version,
    deleted,
  };
}

async function roomDeleted(tx: Tx, room: RoomState, time: Date): Promise<void> {
  if (!(await upsertRoom(tx, roomRecordOf(room, true)))) return;
  const meetings = await meetingsOfRoom(tx, room.id);
  for (const m of meetings) {
    await emit(tx, makeEvent("meeting.deleted", changed(m, {}, time), { source: SOURCE, time }));
  }
  await deleteMeetings(tx, meetings.map((m) => m.id));
}

/**
 * Retention (PUBLIC_MODE): an expired anonymous transcript takes its meeting with it; consent,
 * participant and join records go by cascade. Announced as meeting.deleted like a room deletion.
 */
export async function transcriptExpired(tx: Tx, expired: TranscriptExpired, time: Date): Promise<void> {
  if (!expired.meeting_id) return;
  const meeting = await meetingById(tx, expired.meeting_id, { forUpdate: true });
  if (!meeting) return;
  await emit(tx, makeEvent("meeting.deleted", changed(meeting, {}, time), { source: SOURCE, time }));
  await deleteMeetings(tx, [meeting.id]);
}

export function registerConsumers(rt: Pick<ServiceRuntime<unknown>, "consume">): void {
  rt.consume({
    name: "meetings.rooms",
    stream: "ROOMS",
    // A read model: built from the whole history.
    deliverPolicy: "all",
    handlers: {
      "room.created": async (tx, ev) => void (await upsertRoom(tx, roomRecordOf(ev.data, false))),
      "room.updated": async (tx, ev) => void (await upsertRoom(tx, roomRecordOf(ev.data, false))),
      "room.deleted": async (tx, ev) => roomDeleted(tx, ev.data, new Date(ev.time)),
    },
  });

  rt.consume({
    name: "meetings.retention",
    stream: "NOTIFICATIONS",
    filterSubject: `${STREAMS.NOTIFICATIONS.context}.${eventToken("retention.transcript_expired")}.*`,
    // An instruction to apply, not news: one published before this consumer existed still applies.
    deliverPolicy: "all",
    handlers: {
      "retention.transcript_expired": async (tx, ev) => transcriptExpired(tx, ev.data, new Date()),
    },
  });
}
