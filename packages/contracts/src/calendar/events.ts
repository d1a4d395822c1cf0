// Calendar events (CALENDAR stream), written by the calendar service: the outcome of each ICS sync
// run of a room. Subjects end with the room id, so one room's runs stay in order. The rooms service
// folds `calendar.sync.completed` into the room's `ics_last_sync` / `ics_last_etag`.
import { z } from "@hono/zod-openapi";
import { defineEvent } from "../common/event-def";

const datetime = z.iso.datetime({ offset: true });

export const CalendarSyncCompleted = z.object({
  room_id: z.string(),
  /** success: the feed was read and the room's events written; unchanged: the feed did not change. */
  status: z.enum(["success", "unchanged"]),
  synced_at: datetime,
  /** MD5 hex of the feed body (what rooms show as `ics_last_etag`). */
  hash: z.string(),
  /** The feed server's own ETag, if it sent one. */
  http_etag: z.string().nullable(),
  events_found: z.number().int(),
  total_events: z.number().int(),
  events_created: z.number().int(),
  events_updated: z.number().int(),
  events_deleted: z.number().int(),
});
export type CalendarSyncCompleted = z.infer<typeof CalendarSyncCompleted>;

export const CalendarSyncFailed = z.object({
  room_id: z.string(),
  attempted_at: datetime,
  /** Why, as shown to the room's owner; the room's previous events are kept. */
  error: z.string(),
});
export type CalendarSyncFailed = z.infer<typeof CalendarSyncFailed>;

export const calendarEvents = [
  defineEvent({
    type: "calendar.sync.completed",
    stream: "CALENDAR",
    version: 1,
    data: CalendarSyncCompleted,
    aggregateId: (d) => d.room_id,
  }),
  defineEvent({ type: "calendar.sync.failed", stream: "CALENDAR", version: 1, data: CalendarSyncFailed, aggregateId: (d) => d.room_id }),
] as const;
