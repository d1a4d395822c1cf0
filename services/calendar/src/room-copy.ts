// The calendar's copy of the rooms (kit entity copy: ROOMS events, read through from the rooms
// service when a request must see a newer room). A room that starts syncing, or whose feed URL or
// name changed, is synced soon; a deleted room takes its calendar events with it.
import { roomCopySource, type RoomEvent } from "@scribe/contracts";
import { defineEntityCopy, type Db } from "@scribe/kit";
import { scheduleAfterRoomChange } from "./domain/scheduling";
import { deleteRoomEvents, setNextSync, type CalendarRoom } from "./store";

export const roomCopy = defineEntityCopy<CalendarRoom, RoomEvent, typeof roomCopySource.owner.op>({
  kind: "room",
  table: "room",
  columns: ["id", "name", "user_id", "ics_url", "ics_enabled", "ics_fetch_interval", "version", "deleted"],
  lookups: ["id", "name"],
  rowOf: (room, deleted) => ({
    id: room.id,
    name: room.name,
    user_id: room.user_id,
    ics_url: room.ics_url === "" ? null : room.ics_url,
    ics_enabled: room.ics_enabled,
    ics_fetch_interval: room.ics_fetch_interval,
    version: room.version,
    deleted,
  }),
  owner: roomCopySource.owner,
  afterApply: async (tx, prev, next, now) => {
    if (next.deleted) {
      await setNextSync(tx, next.id, null);
      await deleteRoomEvents(tx, next.id);
      return;
    }
    // Scheduling uses the time of application, not of the event: a replayed history does not
    // make every room due at once. The jitter only spreads rooms apart.
    const schedule = scheduleAfterRoomChange(
      prev && { ...prev, lastAttemptAt: prev.last_attempt_at, nextSyncAt: prev.next_sync_at },
      next,
      now,
      Math.random,
    );
    if (schedule !== undefined) await setNextSync(tx, next.id, schedule);
  },
});

export const roomById = (db: Db, id: string, now: Date): Promise<CalendarRoom | null> => roomCopy.find(db, "id", id, now);
export const roomByName = (db: Db, name: string, now: Date): Promise<CalendarRoom | null> => roomCopy.find(db, "name", name, now);
