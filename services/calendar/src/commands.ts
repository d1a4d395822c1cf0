// Calendar commands over request/reply: the owner's force sync (api.md §2.6) and joining a calendar
// event (decisions: early join), which makes the event's meeting when it has none and joins it as
// the caller through the meetings service.
import {
  ANONYMOUS,
  calendarOps,
  meetingsOps,
  type CalendarEventForMeeting,
  type Caller,
  type ICSSyncResult,
  type Meeting,
} from "@scribe/contracts";
import { AppError, BadRequest, Forbidden, NotFound, rpcCall, type Bus, type RpcServer, type Sql, type Clock } from "@scribe/kit";
import { isRoomOwner } from "./domain/access";
import { earlyJoinRefusal } from "./domain/meetings";
import { existingRoom } from "./queries";
import { eventOfRoom, setEventMeeting, type CalendarEventRecord } from "./store";
import type { Syncer } from "./sync";

/** The calendar service acting on its own behalf: the meetings service shows it everything. */
export const INTERNAL: Caller = { ...ANONYMOUS, via: "internal" };

export function calendarEventForMeeting(e: CalendarEventRecord): CalendarEventForMeeting {
  return {
    id: e.id,
    ics_uid: e.uid,
    title: e.title,
    description: e.description,
    attendees: e.attendees,
    location: e.location,
    start: e.start.toISOString(),
    end: e.end.toISOString(),
  };
}

export interface CommandDeps {
  sql: Sql;
  bus: Bus;
  syncRoom: Syncer;
  rpcTimeoutMs: number;
}

export function calendarCommands({ sql, bus, syncRoom, rpcTimeoutMs }: CommandDeps) {
  return {
    async syncIcs({ caller, room_name }: { caller: Caller; room_name: string }, now: Date): Promise<ICSSyncResult> {
      const room = await existingRoom(sql, room_name, now);
      if (!isRoomOwner(room, caller)) throw Forbidden("Only room owner can trigger ICS sync");
      if (!room.ics_enabled || !room.ics_url) throw BadRequest("ICS not configured for this room");
      const result = await syncRoom(room.id, { now, force: true });
      // api.md: a failed sync answers 500 with the reason (the status endpoint keeps it too).
      if (result.status === "error") throw new AppError("internal", result.error ?? "ICS sync failed");
      return result;
    },

    async joinEvent(
      { caller, room_name, event_id, display_name }: { caller: Caller; room_name: string; event_id: string; display_name: string | null },
      now: Date,
    ): Promise<Meeting> {
      const room = await existingRoom(sql, room_name, now);
      const event = await eventOfRoom(sql, room.id, event_id);
      // Same answer as the join route gives for an id it does not know.
      if (!event) throw NotFound("Meeting not found");
      const refusal = earlyJoinRefusal(event, now);
      if (refusal) throw BadRequest(refusal);
      // Idempotent per event; a meeting that ended is replaced by a new one, never reactivated.
      const meeting = await rpcCall(
        bus,
        meetingsOps.createCalendarMeeting,
        { caller: INTERNAL, room_id: room.id, calendar_event: calendarEventForMeeting(event), replace_inactive: true },
        { timeoutMs: rpcTimeoutMs },
      );
      if (meeting.id !== event.meeting_id) await setEventMeeting(sql, event.id, meeting.id);
      // Joined as the caller: the meetings service makes their token and decides what they see.
      return rpcCall(bus, meetingsOps.join, { caller, room_name, meeting_id: meeting.id, display_name }, { timeoutMs: rpcTimeoutMs });
    },
  };
}

export function registerCommands(rpc: RpcServer, deps: CommandDeps, clock: Clock): void {
  const c = calendarCommands(deps);
  rpc.handle(calendarOps.syncIcs, (req) => c.syncIcs(req, clock()));
  rpc.handle(calendarOps.joinEvent, (req) => c.joinEvent(req, clock()));
}
