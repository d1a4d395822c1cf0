// Meeting queries over request/reply (api.md §2.7): active meetings of a room, one meeting.
import { meetingsOps } from "@scribe/contracts";
import { NotFound, type Clock, type RpcServer, type Sql } from "@scribe/kit";
import { meetingFor, seesFullMeeting } from "./domain/meetings";
import { roomByName } from "./room-copy";
import { activeMeetingsOfRoom, meetingById } from "./store";

export function registerQueries(rpc: RpcServer, sql: Sql, clock: Clock): void {
  // Zero or more: a room can have several active meetings (calendar ones, duplicates, settings changes).
  rpc.handle(meetingsOps.listActive, async ({ caller, room_name }) => {
    const now = clock();
    const room = await roomByName(sql, room_name, now);
    if (!room) throw NotFound("Room not found");
    const full = seesFullMeeting(room, caller);
    // Each meeting keeps its own platform (the reference overwrites it with the room's current one).
    return (await activeMeetingsOfRoom(sql, room.id, now)).map((m) => meetingFor(m, full));
  });

  rpc.handle(meetingsOps.get, async ({ caller, room_name, meeting_id }) => {
    const room = await roomByName(sql, room_name, clock());
    if (!room) throw NotFound("Room not found");
    const meeting = await meetingById(sql, meeting_id);
    if (!meeting || meeting.room_id !== room.id) throw NotFound("Meeting not found");
    return meetingFor(meeting, seesFullMeeting(room, caller));
  });
}
