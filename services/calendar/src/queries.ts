// Calendar queries over request/reply (api.md §2.6): a room's events, its upcoming events, its ICS
// status. `now` comes from the service's clock so tests can move it.
import { calendarOps, ICSStatus, type Caller, type CalendarEventResponse } from "@scribe/contracts";
import { Forbidden, NotFound, type Db, type RpcServer, type Clock } from "@scribe/kit";
import { eventFor, isRoomOwner } from "./domain/access";
import { upcomingRange } from "./domain/meetings";
import { countEvents, eventResponseOf, listEvents, upcomingEvents, type CalendarEventRecord, type CalendarRoom } from "./store";
import { roomByName } from "./room-copy";

export async function existingRoom(db: Db, name: string, now: Date): Promise<CalendarRoom> {
  const room = await roomByName(db, name, now);
  if (!room) throw NotFound("Room not found");
  return room;
}

const shown = (room: CalendarRoom, caller: Caller, events: CalendarEventRecord[]): CalendarEventResponse[] =>
  events.map((e) => eventFor(eventResponseOf(e), isRoomOwner(room, caller)));

export function calendarQueries(db: Db, clock: Clock) {
  return {
    async listEvents({ caller, room_name }: { caller: Caller; room_name: string }) {
      const room = await existingRoom(db, room_name, clock());
      return shown(room, caller, await listEvents(db, room.id));
    },

    async upcoming({ caller, room_name, minutes_ahead }: { caller: Caller; room_name: string; minutes_ahead: number }, now: Date) {
      const room = await existingRoom(db, room_name, now);
      return shown(room, caller, await upcomingEvents(db, room.id, upcomingRange(now, minutes_ahead)));
    },

    async icsStatus({ caller, room_name }: { caller: Caller; room_name: string }): Promise<ICSStatus> {
      const room = await existingRoom(db, room_name, clock());
      if (!isRoomOwner(room, caller)) throw Forbidden("Only room owner can view ICS status");
      const enabled = room.ics_enabled && room.ics_url !== null;
      return ICSStatus.parse({
        status: enabled ? "enabled" : "disabled",
        last_sync: room.last_sync_at?.toISOString() ?? null,
        // The contract's value (api.md §2.6: last_sync + ics_fetch_interval, only when enabled and
        // synced), not the scheduler's jittered and leased next_sync_at.
        next_sync:
          enabled && room.last_sync_at ? new Date(room.last_sync_at.getTime() + room.ics_fetch_interval * 1000).toISOString() : null,
        last_etag: room.content_hash,
        events_count: await countEvents(db, room.id),
        last_attempt: room.last_attempt_at?.toISOString() ?? null,
        last_result: room.last_status,
        last_error: room.last_error,
      });
    },
  };
}

export function registerQueries(rpc: RpcServer, db: Db, clock: Clock): void {
  const q = calendarQueries(db, clock);
  rpc.handle(calendarOps.listEvents, (req) => q.listEvents(req));
  rpc.handle(calendarOps.upcoming, (req) => q.upcoming(req, clock()));
  rpc.handle(calendarOps.icsStatus, (req) => q.icsStatus(req));
}
