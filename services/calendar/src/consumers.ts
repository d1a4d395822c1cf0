// The calendar's copy of the rooms, from ROOMS events (full state + version: a stale state is
// ignored). A room that starts syncing, or whose feed URL or name changed, is synced soon; a deleted
// room takes its calendar events with it.
import type { RoomState } from "@scribe/contracts";
import type { ServiceRuntime, Tx } from "@scribe/kit";
import { scheduleAfterRoomChange } from "./domain/scheduling";
import { deleteRoomEvents, roomForUpdate, saveRoomCopy, type RoomCopy } from "./store";

export function roomCopyOf(room: RoomState, deleted: boolean): RoomCopy {
  return {
    id: room.id,
    name: room.name,
    user_id: room.user_id,
    ics_url: room.ics_url === "" ? null : room.ics_url,
    ics_enabled: room.ics_enabled,
    ics_fetch_interval: room.ics_fetch_interval,
    version: room.version,
    deleted,
  };
}

/** Apply a room state unless a newer one is stored; true when applied. */
export async function applyRoom(tx: Tx, room: RoomState, deleted: boolean, now: Date, random: () => number): Promise<boolean> {
  const prev = await roomForUpdate(tx, room.id);
  if (prev && prev.version >= room.version) return false;
  const next = roomCopyOf(room, deleted);
  const schedule = deleted
    ? null
    : scheduleAfterRoomChange(prev && { ...prev, lastAttemptAt: prev.last_attempt_at, nextSyncAt: prev.next_sync_at }, next, now, random);
  await saveRoomCopy(tx, next, schedule);
  if (deleted) await deleteRoomEvents(tx, room.id);
  return true;
}

export function registerConsumers(rt: Pick<ServiceRuntime<unknown>, "consume">, random: () => number): void {
  rt.consume({
    name: "calendar.rooms",
    stream: "ROOMS",
    // A read model: built from the whole history.
    deliverPolicy: "all",
    handlers: {
      // Scheduling uses the time of application, not of the event: a replayed history does not
      // make every room due at once.
      "room.created": async (tx, ev) => void (await applyRoom(tx, ev.data, false, new Date(), random)),
      "room.updated": async (tx, ev) => void (await applyRoom(tx, ev.data, false, new Date(), random)),
      "room.deleted": async (tx, ev) => void (await applyRoom(tx, ev.data, true, new Date(), random)),
    },
  });
}
