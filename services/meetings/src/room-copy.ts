// The meetings service's copy of the rooms: what meeting rules read (kit entity copy: ROOMS events,
// read through from the rooms service when a request must see a newer room).
import { RecordingTrigger, RecordingType, RoomMode, makeEvent, roomCopySource, type RoomEvent } from "@scribe/contracts";
import { defineEntityCopy, emit, type Db, type Tx } from "@scribe/kit";
import { SOURCE, changed } from "./changes";
import type { RoomRecord } from "./domain/meetings";
import { deleteMeetings, meetingsOfRoom } from "./store";

export const roomCopy = defineEntityCopy<RoomRecord, RoomEvent, typeof roomCopySource.owner.op>({
  kind: "room",
  table: "room",
  columns: [
    "id",
    "name",
    "user_id",
    "is_shared",
    "platform",
    "is_locked",
    "room_mode",
    "recording_type",
    "recording_trigger",
    "skip_consent",
    "store_video",
    "version",
    "deleted",
  ],
  lookups: ["id", "name"],
  rowOf: roomRecordOf,
  owner: roomCopySource.owner,
  afterApply: async (tx, _previous, next, now) => {
    if (next.deleted) await roomDeleted(tx, next.id, now);
  },
});

export const roomByName = (db: Db, name: string, now: Date): Promise<RoomRecord | null> => roomCopy.find(db, "name", name, now);
export const roomById = (db: Db, id: string, now: Date): Promise<RoomRecord | null> => roomCopy.find(db, "id", id, now);
/**
 * The room as its owner has it now (the copy brought up to date): a meeting is created on the platform
 * the room has, even when the request reached this replica before the room's latest version did.
 */
export const currentRoomByName = (db: Db, name: string, now: Date): Promise<RoomRecord | null> =>
  roomCopy.find(db, "name", name, now, { fromOwner: true });

export function roomRecordOf(room: RoomEvent, deleted: boolean): RoomRecord {
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

/** A deleted room takes its meetings with it, each announced by meeting.deleted. */
async function roomDeleted(tx: Tx, roomId: string, time: Date): Promise<void> {
  const meetings = await meetingsOfRoom(tx, roomId);
  for (const m of meetings) {
    await emit(tx, makeEvent("meeting.deleted", changed(m, {}, time), { source: SOURCE, time }));
  }
  await deleteMeetings(
    tx,
    meetings.map((m) => m.id),
  );
}
