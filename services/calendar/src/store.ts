// SQL of the calendar service; nothing else in the service touches the database.
import { randomUUID } from "node:crypto";
import { CalendarAttendee, type CalendarEventResponse, type SyncStatusValue } from "@scribe/contracts";
import type { Db } from "@scribe/kit";
import { z } from "zod";
import type { StoredEvent } from "./domain/event-writes";
import type { FeedEvent } from "./domain/feed";

// ---------------------------------------------------------------------------------------- rooms

/** The calendar's copy of a room (settings from ROOMS events) with its sync state. */
export interface CalendarRoom {
  id: string;
  name: string;
  user_id: string;
  ics_url: string | null;
  ics_enabled: boolean;
  ics_fetch_interval: number;
  version: number;
  deleted: boolean;
  next_sync_at: Date | null;
  last_attempt_at: Date | null;
  last_sync_at: Date | null;
  last_status: Exclude<SyncStatusValue, "skipped"> | null;
  last_error: string | null;
  content_hash: string | null;
  http_etag: string | null;
  synced_feed_url: string | null;
  matched_room_url: string | null;
  window_end: Date | null;
  events_found: number;
  total_events: number;
}

/** Move a room's next sync (null: the room does not sync). */
export async function setNextSync(db: Db, id: string, at: Date | null): Promise<void> {
  await db`update room set next_sync_at = ${at} where id = ${id}`;
}

/**
 * Claim up to `limit` rooms whose sync is due, oldest first, by moving their next run to
 * `leaseUntil`: another worker's scheduler does not pick them, and a worker that dies mid-sync
 * leaves them due again once the lease passes.
 */
export async function claimDueRooms(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    update room set next_sync_at = ${leaseUntil}
    where id in (
      select id from room
      where ics_enabled and not deleted and next_sync_at is not null and next_sync_at <= ${now}
      order by next_sync_at
      limit ${limit}
      for update skip locked)
    returning id`;
  return rows.map((r) => r.id);
}

/** One sync per room at a time: held until the transaction ends; false if another sync holds it. */
export async function tryLockRoomSync(tx: Db, roomId: string): Promise<boolean> {
  const [row] = await tx<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(hashtext('scribe:calendar:sync'), hashtext(${roomId})) as locked`;
  return row!.locked;
}

export interface SyncRecord {
  attemptedAt: Date;
  nextSyncAt: Date;
  status: Exclude<SyncStatusValue, "skipped">;
  error: string | null;
  /** Set on success and unchanged runs. */
  synced?: {
    contentHash: string;
    httpEtag: string | null;
    feedUrl: string;
    /** Set when the feed was read in full and the events written. */
    read?: { roomUrl: string; windowEnd: Date; eventsFound: number; totalEvents: number };
  };
}

export async function recordSyncRun(db: Db, roomId: string, run: SyncRecord): Promise<void> {
  const s = run.synced;
  await db`
    update room set
      last_attempt_at = ${run.attemptedAt},
      next_sync_at = ${run.nextSyncAt},
      last_status = ${run.status},
      last_error = ${run.error},
      last_sync_at = ${s ? run.attemptedAt : db`last_sync_at`},
      content_hash = ${s ? s.contentHash : db`content_hash`},
      http_etag = ${s ? s.httpEtag : db`http_etag`},
      synced_feed_url = ${s ? s.feedUrl : db`synced_feed_url`},
      matched_room_url = ${s?.read ? s.read.roomUrl : db`matched_room_url`},
      window_end = ${s?.read ? s.read.windowEnd : db`window_end`},
      events_found = ${s?.read ? s.read.eventsFound : db`events_found`},
      total_events = ${s?.read ? s.read.totalEvents : db`total_events`}
    where id = ${roomId}`;
}

// ------------------------------------------------------------------------------------- events

interface EventRow {
  id: string;
  room_id: string;
  ics_uid: string;
  recurrence_id: string;
  title: string | null;
  description: string | null;
  location: string | null;
  start_time: Date;
  end_time: Date;
  attendees: unknown;
  last_synced: Date;
  is_deleted: boolean;
  created_at: Date;
  updated_at: Date;
  meeting_id: string | null;
}

/** A stored calendar event, as the service works with it. */
export interface CalendarEventRecord extends StoredEvent {
  room_id: string;
  last_synced: Date;
  created_at: Date;
  updated_at: Date;
  meeting_id: string | null;
}

const EVENT_COLUMNS = [
  "id",
  "room_id",
  "ics_uid",
  "recurrence_id",
  "title",
  "description",
  "location",
  "start_time",
  "end_time",
  "attendees",
  "last_synced",
  "is_deleted",
  "created_at",
  "updated_at",
  "meeting_id",
] as const;

const Attendees = z.array(CalendarAttendee);

function toRecord(row: EventRow): CalendarEventRecord {
  const { ics_uid, recurrence_id, start_time, end_time, is_deleted, attendees, ...rest } = row;
  return {
    ...rest,
    uid: ics_uid,
    recurrenceId: recurrence_id,
    start: start_time,
    end: end_time,
    isDeleted: is_deleted,
    attendees: Attendees.parse(attendees),
  };
}

export function eventResponseOf(r: CalendarEventRecord): CalendarEventResponse {
  return {
    id: r.id,
    room_id: r.room_id,
    ics_uid: r.uid,
    title: r.title,
    description: r.description,
    start_time: r.start.toISOString(),
    end_time: r.end.toISOString(),
    attendees: r.attendees,
    location: r.location,
    last_synced: r.last_synced.toISOString(),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** Rows a sync compares against: those sharing a key with the feed, and the room's future live events. */
export async function eventsForSync(db: Db, roomId: string, incoming: FeedEvent[], now: Date): Promise<CalendarEventRecord[]> {
  const uids = incoming.map((e) => e.uid);
  const recurrenceIds = incoming.map((e) => e.recurrenceId);
  const rows = await db<EventRow[]>`
    select ${db(EVENT_COLUMNS)} from calendar_event
    where room_id = ${roomId}
      and ((ics_uid, recurrence_id) in (select * from unnest(${uids}::text[], ${recurrenceIds}::text[]))
           or (not is_deleted and start_time > ${now}))`;
  return rows.map(toRecord);
}

export async function insertEvent(db: Db, roomId: string, e: FeedEvent, now: Date): Promise<void> {
  await db`
    insert into calendar_event (id, room_id, ics_uid, recurrence_id, title, description, location, start_time, end_time,
                                attendees, ics_raw_data, last_synced, is_deleted, created_at, updated_at)
    values (${randomUUID()}, ${roomId}, ${e.uid}, ${e.recurrenceId}, ${e.title}, ${e.description}, ${e.location},
            ${e.start}, ${e.end}, ${JSON.stringify(e.attendees)}::text::jsonb, ${e.raw}, ${now}, false, ${now}, ${now})`;
}

/** Overwrite an event with the feed's version; a soft-deleted one is restored. */
export async function updateEvent(db: Db, id: string, e: FeedEvent, now: Date): Promise<void> {
  await db`
    update calendar_event set
      title = ${e.title}, description = ${e.description}, location = ${e.location}, start_time = ${e.start},
      end_time = ${e.end}, attendees = ${JSON.stringify(e.attendees)}::text::jsonb, ics_raw_data = ${e.raw},
      last_synced = ${now}, is_deleted = false, updated_at = ${now}
    where id = ${id}`;
}

export async function softDeleteEvents(db: Db, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db`update calendar_event set is_deleted = true, updated_at = ${now} where id = any(${ids}::text[])`;
}

export async function deleteRoomEvents(db: Db, roomId: string): Promise<void> {
  await db`delete from calendar_event where room_id = ${roomId}`;
}

/** Every live event of a room, by start. */
export async function listEvents(db: Db, roomId: string): Promise<CalendarEventRecord[]> {
  const rows = await db<EventRow[]>`
    select ${db(EVENT_COLUMNS)} from calendar_event
    where room_id = ${roomId} and not is_deleted order by start_time, id`;
  return rows.map(toRecord);
}

export async function upcomingEvents(db: Db, roomId: string, range: { startsBy: Date; endsAfter: Date }): Promise<CalendarEventRecord[]> {
  const rows = await db<EventRow[]>`
    select ${db(EVENT_COLUMNS)} from calendar_event
    where room_id = ${roomId} and not is_deleted and start_time <= ${range.startsBy} and end_time >= ${range.endsAfter}
    order by start_time, id`;
  return rows.map(toRecord);
}

export async function countEvents(db: Db, roomId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from calendar_event where room_id = ${roomId} and not is_deleted`;
  return row!.n;
}

export async function eventOfRoom(db: Db, roomId: string, id: string): Promise<CalendarEventRecord | null> {
  const rows = await db<EventRow[]>`
    select ${db(EVENT_COLUMNS)} from calendar_event where id = ${id} and room_id = ${roomId} and not is_deleted`;
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Live events of syncing rooms in the pre-creation range that have no meeting yet. */
export async function eventsNeedingMeetings(
  db: Db,
  range: { startsAfter: Date; startsBy: Date; endsAfter: Date },
  limit: number,
): Promise<CalendarEventRecord[]> {
  const rows = await db<EventRow[]>`
    select ${db(EVENT_COLUMNS.map((c) => `e.${c}`))} from calendar_event e join room r on r.id = e.room_id
    where not e.is_deleted and e.meeting_id is null
      and e.start_time > ${range.startsAfter} and e.start_time <= ${range.startsBy} and e.end_time >= ${range.endsAfter}
      and r.ics_enabled and not r.deleted
    order by e.start_time
    limit ${limit}`;
  return rows.map(toRecord);
}

export async function setEventMeeting(db: Db, eventId: string, meetingId: string): Promise<void> {
  await db`update calendar_event set meeting_id = ${meetingId} where id = ${eventId}`;
}
