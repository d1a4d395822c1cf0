// Who sees what of a room's calendar: owners see events in full, everyone else without description
// and attendees (api.md §2.6); ICS status and force sync are the owner's.
import type { CalendarEventResponse, Caller } from "@scribe/contracts";

export function isRoomOwner(room: { user_id: string }, caller: Caller): boolean {
  return caller.userId !== null && caller.userId === room.user_id;
}

export function eventFor(event: CalendarEventResponse, full: boolean): CalendarEventResponse {
  return full ? event : { ...event, description: null, attendees: null };
}
