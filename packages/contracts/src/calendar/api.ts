// Calendar / ICS API schemas (api.md §1.5, component names verbatim) and the calendar rules every
// side agrees on (early-join lead time, upcoming window).
import { z } from "@hono/zod-openapi";
import { SyncStatus } from "../common/enums";
import { CalendarAttendee } from "../meetings/api";

const datetime = z.iso.datetime({ offset: true });

export type SyncStatusValue = z.infer<typeof SyncStatus>;

/** A calendar event of a room. Non-owners get `description` and `attendees` as null. */
export const CalendarEventResponse = z
  .object({
    id: z.string(),
    room_id: z.string(),
    /** The feed's UID; the instances of a recurring series share it (each has its own `id`). */
    ics_uid: z.string(),
    title: z.string().nullable().default(null),
    description: z.string().nullable().default(null),
    start_time: datetime,
    end_time: datetime,
    attendees: z.array(CalendarAttendee).nullable().default(null),
    location: z.string().nullable().default(null),
    last_synced: datetime,
    created_at: datetime,
    updated_at: datetime,
  })
  .openapi("CalendarEventResponse");
export type CalendarEventResponse = z.infer<typeof CalendarEventResponse>;

export const ICSStatus = z
  .object({
    status: z.enum(["enabled", "disabled"]),
    /** Last sync that ended success or unchanged. */
    last_sync: datetime.nullable().default(null),
    /** When the scheduler syncs the room next (enabled rooms only). */
    next_sync: datetime.nullable().default(null),
    /** MD5 hex of the last fetched feed body (the reference's `ics_last_etag`). */
    last_etag: z.string().nullable().default(null),
    /** Non-deleted calendar events of the room, all dates. */
    events_count: z.number().int().default(0),
    // Scribe additions, so an owner can see why a feed is not syncing.
    /** Last sync run, whatever its outcome. */
    last_attempt: datetime.nullable().default(null),
    /** Outcome of the last run (success, unchanged or error; skipped runs are not recorded). */
    last_result: SyncStatus.nullable().default(null),
    /** Why the last run failed (null unless last_result is error). */
    last_error: z.string().nullable().default(null),
  })
  .openapi("ICSStatus");
export type ICSStatus = z.infer<typeof ICSStatus>;

export const ICSSyncResult = z
  .object({
    status: SyncStatus,
    /** MD5 hex of the feed body (success and unchanged). */
    hash: z.string().nullable().default(null),
    /** Events of the feed's window that belong to this room. */
    events_found: z.number().int().default(0),
    /** Events (instances of recurring ones counted one by one) in the feed's window, any room. */
    total_events: z.number().int().default(0),
    events_created: z.number().int().default(0),
    events_updated: z.number().int().default(0),
    events_deleted: z.number().int().default(0),
    error: z.string().nullable().default(null),
    /** Why the run was skipped. */
    reason: z.string().nullable().default(null),
  })
  .openapi("ICSSyncResult");
export type ICSSyncResult = z.infer<typeof ICSSyncResult>;

/** Upcoming calendar events: this many minutes ahead by default (interface-spec §8). */
export const UPCOMING_DEFAULT_MINUTES = 120;
export const UpcomingQuery = z.object({
  // Up to a year ahead: the reference has no bound, a bound keeps the date arithmetic sane.
  minutes_ahead: z.coerce.number().int().min(0).max(525_600).default(UPCOMING_DEFAULT_MINUTES),
});

/** A calendar event can be joined from this long before its start (interface-spec §8, decisions). */
export const EARLY_JOIN_SECONDS = 300;
