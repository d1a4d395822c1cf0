// Request/reply operations of the calendar service (`rpc.calendar.*`), api.md §2.6 and the early
// join of a calendar event (§2.7 join, decisions: Meetings).
import { z } from "@hono/zod-openapi";
import { CalendarEventResponse, ICSStatus, ICSSyncResult, UpcomingQuery } from "./api";
import { Meeting } from "../meetings/api";
import { defineOp, withCaller } from "../common/rpc";

const RoomName = { room_name: z.string() };

export const calendarOps = {
  /** GET /v1/rooms/{room_name}/meetings: every non-deleted calendar event of the room. */
  listEvents: defineOp("calendar.list_events", withCaller(RoomName), z.array(CalendarEventResponse)),
  /** GET /v1/rooms/{room_name}/meetings/upcoming: events happening now or starting within the window. */
  upcoming: defineOp("calendar.upcoming", withCaller({ ...RoomName, ...UpcomingQuery.shape }), z.array(CalendarEventResponse)),
  /** GET /v1/rooms/{room_name}/ics/status (room owner). */
  icsStatus: defineOp("calendar.ics_status", withCaller(RoomName), ICSStatus),
  /** POST /v1/rooms/{room_name}/ics/sync (room owner): sync now. */
  syncIcs: defineOp("calendar.sync_ics", withCaller(RoomName), ICSSyncResult),
  /**
   * Join a calendar event that may not have a meeting yet (the join route with the event's id):
   * allowed while it is ongoing or from EARLY_JOIN_SECONDS before its start; its meeting is created
   * if needed, then joined as the caller.
   */
  joinEvent: defineOp(
    "calendar.join_event",
    withCaller({ ...RoomName, event_id: z.string(), display_name: z.string().nullable() }),
    Meeting,
  ),
} as const;

/**
 * Force sync waits for the feed (ICS_FETCH_TIMEOUT_MS, at most 50 s) and the writes: the gateway
 * gives it this long rather than the default RPC deadline.
 */
export const ICS_SYNC_RPC_TIMEOUT_MS = 60_000;
