// SQL of the meetings service; nothing else in the service touches the database.
import { CalendarMetadata, MeetingState } from "@scribe/contracts";
import { Conflict, type Db } from "@scribe/kit";
import { normalizeRecipients } from "./domain/meetings";
import type { OpenStay } from "./domain/presence";

// ---------------------------------------------------------------------------------------- rooms

/** Told (NOTIFY, payload the room id) when a room's creation claim goes: its waiters look again. */
export const CREATION_CHANNEL = "meetings_creation";

/**
 * Claims meeting creation in a room for `leaseMs` (reuse-or-create must see the other's meeting):
 * true when this caller holds it. A claim whose lease ran out is taken over (its holder stopped).
 */
export async function claimMeetingCreation(db: Db, roomId: string, token: string, leaseMs: number): Promise<boolean> {
  const rows = await db`insert into meeting_creation (room_id, claim_token, lease_until)
    values (${roomId}, ${token}, now() + ${leaseMs} * interval '1 millisecond')
    on conflict (room_id) do update set claim_token = excluded.claim_token, lease_until = excluded.lease_until
      where meeting_creation.lease_until < now()
    returning room_id`;
  return rows.length > 0;
}

/** Extends this caller's claim by `leaseMs` from now; false when it is no longer its own. */
export async function renewMeetingCreation(db: Db, roomId: string, token: string, leaseMs: number): Promise<boolean> {
  const rows = await db`update meeting_creation set lease_until = now() + ${leaseMs} * interval '1 millisecond'
    where room_id = ${roomId} and claim_token = ${token} returning room_id`;
  return rows.length > 0;
}

/**
 * Releases this caller's claim and wakes the room's waiters (at commit when `db` is a transaction);
 * false when the claim was no longer its own (its lease ran out and another took it over).
 */
export async function releaseMeetingCreation(db: Db, roomId: string, token: string): Promise<boolean> {
  const rows = await db`delete from meeting_creation where room_id = ${roomId} and claim_token = ${token} returning room_id`;
  await db`select pg_notify(${CREATION_CHANNEL}, ${roomId})`;
  return rows.length > 0;
}

// ------------------------------------------------------------------------------------- meetings

const MEETING_COLUMNS = [
  "id",
  "room_id",
  "room_name",
  "room_url",
  "host_room_url",
  "start_date",
  "end_date",
  "created_at",
  "updated_at",
  "version",
  "is_locked",
  "room_mode",
  "recording_type",
  "recording_trigger",
  "num_clients",
  "is_active",
  "deactivated_at",
  "deactivation_reason",
  "calendar_event_id",
  "calendar_metadata",
  "scheduled_end",
  "platform",
  "daily_composed_video_s3_key",
  "daily_composed_video_duration",
  "email_recipients",
  "store_video",
] as const;

type Stamp = Date | string | null;
interface MeetingRow {
  id: string;
  room_id: string;
  room_name: string;
  room_url: string;
  host_room_url: string;
  start_date: Stamp;
  end_date: Stamp;
  created_at: Stamp;
  updated_at: Stamp;
  version: number;
  is_locked: boolean;
  room_mode: string;
  recording_type: string;
  recording_trigger: string;
  num_clients: number;
  is_active: boolean;
  deactivated_at: Stamp;
  deactivation_reason: string | null;
  calendar_event_id: string | null;
  calendar_metadata: unknown;
  scheduled_end: Stamp;
  platform: string;
  daily_composed_video_s3_key: string | null;
  daily_composed_video_duration: number | null;
  email_recipients: unknown;
  store_video: boolean;
  /** From the room. */
  scribe_room_name: string;
  room_owner_id: string;
}

type Json = Parameters<Db["json"]>[0];
const iso = (v: Stamp): string | null => (v instanceof Date ? v.toISOString() : v);

function toState(row: MeetingRow): MeetingState {
  return MeetingState.parse({
    ...row,
    start_date: iso(row.start_date),
    end_date: iso(row.end_date),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deactivated_at: iso(row.deactivated_at),
    user_id: null,
    calendar_metadata: row.calendar_metadata === null ? null : CalendarMetadata.parse(row.calendar_metadata),
    email_recipients: normalizeRecipients(row.email_recipients),
  });
}

/** The scheduled end of a calendar meeting, kept in its own column for the processing job. */
function scheduledEndOf(state: MeetingState): string | null {
  return state.calendar_metadata?.end_time ?? null;
}

function toRow(db: Db, state: MeetingState) {
  return {
    id: state.id,
    room_id: state.room_id,
    room_name: state.room_name,
    room_url: state.room_url,
    host_room_url: state.host_room_url,
    start_date: state.start_date,
    end_date: state.end_date,
    created_at: state.created_at,
    updated_at: state.updated_at,
    version: state.version,
    is_locked: state.is_locked,
    room_mode: state.room_mode,
    recording_type: state.recording_type,
    recording_trigger: state.recording_trigger,
    num_clients: state.num_clients,
    is_active: state.is_active,
    deactivated_at: state.deactivated_at,
    deactivation_reason: state.deactivation_reason,
    calendar_event_id: state.calendar_event_id,
    calendar_metadata: state.calendar_metadata === null ? null : db.json(state.calendar_metadata as Json),
    scheduled_end: scheduledEndOf(state),
    platform: state.platform,
    daily_composed_video_s3_key: state.daily_composed_video_s3_key,
    daily_composed_video_duration: state.daily_composed_video_duration,
    email_recipients: db.json(state.email_recipients as Json),
    store_video: state.store_video,
  };
}

function selectMeetings(db: Db) {
  return db`select ${db(MEETING_COLUMNS.map((c) => `m.${c}`))}, r.name as scribe_room_name, r.user_id as room_owner_id
    from meeting m join room r on r.id = m.room_id`;
}

/** Store a new meeting; a platform meeting id already stored is a conflict, not a primary-key 500. */
export async function insertMeeting(db: Db, state: MeetingState): Promise<void> {
  try {
    await db`insert into meeting ${db(toRow(db, state), ...MEETING_COLUMNS)}`;
  } catch (e) {
    const pg = e as { code?: string; constraint_name?: string };
    if (pg.code === "23505" && pg.constraint_name === "meeting_pkey") {
      throw Conflict(`The ${state.platform} meeting ${state.id} already exists`);
    }
    throw e;
  }
}

/** Write a changed meeting (the caller bumped version and updated_at). */
export async function updateMeeting(db: Db, state: MeetingState): Promise<void> {
  const columns = MEETING_COLUMNS.filter((c) => c !== "id");
  await db`update meeting set ${db(toRow(db, state), ...columns)} where id = ${state.id}`;
}

/** `forUpdate` locks the row: changes to one meeting (webhooks, API, job) are serialised. */
export async function meetingById(db: Db, id: string, opts: { forUpdate?: boolean } = {}): Promise<MeetingState | null> {
  const rows = opts.forUpdate
    ? await db<MeetingRow[]>`${selectMeetings(db)} where m.id = ${id} for update of m`
    : await db<MeetingRow[]>`${selectMeetings(db)} where m.id = ${id}`;
  return rows[0] ? toState(rows[0]) : null;
}

/** Active meetings of a room that have not reached their end, newest end first (§3.3). */
export async function activeMeetingsOfRoom(db: Db, roomId: string, now: Date): Promise<MeetingState[]> {
  const rows = await db<MeetingRow[]>`${selectMeetings(db)}
    where m.room_id = ${roomId} and m.is_active and m.end_date > ${now}
    order by m.end_date desc, m.created_at desc`;
  return rows.map(toState);
}

export async function newestMeetingOfCalendarEvent(db: Db, calendarEventId: string): Promise<MeetingState | null> {
  const rows = await db<MeetingRow[]>`${selectMeetings(db)}
    where m.calendar_event_id = ${calendarEventId} order by m.created_at desc limit 1`;
  return rows[0] ? toState(rows[0]) : null;
}

/** Meetings created with a platform room name (Daily names carry a timestamp, so usually one). */
export async function meetingsByPlatformRoomName(db: Db, platformRoomName: string): Promise<MeetingState[]> {
  const rows = await db<MeetingRow[]>`${selectMeetings(db)}
    where m.room_name = ${platformRoomName} order by m.start_date desc, m.id`;
  return rows.map(toState);
}

export async function meetingsOfRoom(db: Db, roomId: string): Promise<MeetingState[]> {
  const rows = await db<MeetingRow[]>`${selectMeetings(db)} where m.room_id = ${roomId} order by m.created_at`;
  return rows.map(toState);
}

/** Deleting meetings deletes their consent, participant and join records (cascade). */
export async function deleteMeetings(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db`delete from meeting where id = any(${ids})`;
}

// ------------------------------------------------------------------------------ meeting processing

export async function activeMeetingIds(db: Db): Promise<string[]> {
  const rows = await db<{ id: string }[]>`select id from meeting where is_active order by created_at, id`;
  return rows.map((r) => r.id);
}

/**
 * Take the meeting's processing lock for this transaction without waiting: false when another
 * worker holds it (the caller skips the meeting and counts it).
 */
export async function tryLockMeetingForProcessing(tx: Db, meetingId: string): Promise<boolean> {
  const [row] = await tx<
    { ok: boolean }[]
  >`select pg_try_advisory_xact_lock(hashtext('scribe:meetings:process'), hashtext(${meetingId})) as ok`;
  return row!.ok;
}

export async function lastProcessedAt(db: Db, meetingId: string): Promise<Date | null> {
  const [row] = await db<{ last_processed_at: Date | null }[]>`select last_processed_at from meeting where id = ${meetingId}`;
  return row?.last_processed_at ?? null;
}

export async function markProcessed(db: Db, meetingId: string, roundStart: Date): Promise<void> {
  await db`update meeting set last_processed_at = ${roundStart} where id = ${meetingId}`;
}

// --------------------------------------------------------------------------- participant stays

export interface StayRow {
  id: string;
  meeting_id: string;
  session_id: string;
  user_id: string | null;
  user_name: string;
  joined_at: Date;
  left_at: Date | null;
}

export async function openStays(db: Db, meetingId: string): Promise<(OpenStay & { row: StayRow })[]> {
  const rows = await db<StayRow[]>`select id, meeting_id, session_id, user_id, user_name, joined_at, left_at
    from participant_session where meeting_id = ${meetingId} and left_at is null order by joined_at, seq`;
  return rows.map((row) => ({ id: row.id, sessionId: row.session_id, row }));
}

export async function staysOfMeeting(db: Db, meetingId: string): Promise<StayRow[]> {
  return db<StayRow[]>`select id, meeting_id, session_id, user_id, user_name, joined_at, left_at
    from participant_session where meeting_id = ${meetingId} order by joined_at, seq`;
}

export async function hasAnyStay(db: Db, meetingId: string): Promise<boolean> {
  const rows = await db`select 1 from participant_session where meeting_id = ${meetingId} limit 1`;
  return rows.length > 0;
}

/** Open a stay unless the session already has an open one; the inserted row, or null. */
const STAY_COLUMNS = ["id", "meeting_id", "session_id", "user_id", "user_name", "joined_at", "left_at"] as const;

export async function openStay(db: Db, stay: Omit<StayRow, "left_at">): Promise<StayRow | null> {
  const rows = await db<StayRow[]>`insert into participant_session ${db({ ...stay, left_at: null }, ...STAY_COLUMNS)}
    on conflict (meeting_id, session_id) where left_at is null do nothing
    returning ${db(STAY_COLUMNS)}`;
  return rows[0] ?? null;
}

/** Record a stay that is already over (its joining was never seen). */
export async function insertClosedStay(db: Db, stay: StayRow): Promise<StayRow> {
  const [row] = await db<StayRow[]>`insert into participant_session ${db(stay, ...STAY_COLUMNS)} returning ${db(STAY_COLUMNS)}`;
  return row!;
}

/** Close open stays (a closed one is never touched again); the rows closed. */
export async function closeStays(db: Db, ids: string[], leftAt: Date): Promise<StayRow[]> {
  if (ids.length === 0) return [];
  return db<StayRow[]>`update participant_session set left_at = greatest(${leftAt}::timestamptz, joined_at)
    where id = any(${ids}) and left_at is null
    returning id, meeting_id, session_id, user_id, user_name, joined_at, left_at`;
}

export async function countOpenStays(db: Db, meetingId: string): Promise<number> {
  const [row] = await db<
    { n: number }[]
  >`select count(*)::int as n from participant_session where meeting_id = ${meetingId} and left_at is null`;
  return row!.n;
}

// ------------------------------------------------------------------------------------ join grants

export async function recordJoinGrant(
  db: Db,
  grant: { meeting_id: string; user_id: string; display_name: string | null; created_at: Date },
): Promise<void> {
  await db`insert into join_grant ${db(grant, "meeting_id", "user_id", "display_name", "created_at")}
    on conflict (meeting_id, user_id) do update set display_name = coalesce(excluded.display_name, join_grant.display_name)`;
}

/** Did this user join the meeting: through Scribe's join (a grant) or as reported by the platform? */
export async function userJoinedMeeting(db: Db, meetingId: string, userId: string): Promise<boolean> {
  const rows = await db`select 1 from join_grant where meeting_id = ${meetingId} and user_id = ${userId}
    union all select 1 from participant_session where meeting_id = ${meetingId} and user_id = ${userId} limit 1`;
  return rows.length > 0;
}

/** Is a participant without a Scribe identity in the call right now? */
export async function guestInCall(db: Db, meetingId: string): Promise<boolean> {
  const rows = await db`select 1 from participant_session where meeting_id = ${meetingId} and user_id is null and left_at is null limit 1`;
  return rows.length > 0;
}

export async function grantedUserIds(db: Db, meetingId: string): Promise<Set<string>> {
  const rows = await db<{ user_id: string }[]>`select user_id from join_grant where meeting_id = ${meetingId}`;
  return new Set(rows.map((r) => r.user_id));
}

// ------------------------------------------------------------------------------------------ consent

export interface ConsentRow {
  id: string;
  meeting_id: string;
  user_id: string | null;
  consent_given: boolean;
  consent_timestamp: Date;
}

/** A signed-in user's answer replaces their earlier one; an anonymous answer is always a new record. */
export async function recordConsent(db: Db, consent: ConsentRow): Promise<ConsentRow> {
  const cols = ["id", "meeting_id", "user_id", "consent_given", "consent_timestamp"] as const;
  const [row] =
    consent.user_id === null
      ? await db<ConsentRow[]>`insert into meeting_consent ${db(consent, ...cols)} returning ${db(cols)}`
      : await db<ConsentRow[]>`insert into meeting_consent ${db(consent, ...cols)}
          on conflict (meeting_id, user_id) where user_id is not null
          do update set consent_given = excluded.consent_given, consent_timestamp = excluded.consent_timestamp
          returning ${db(cols)}`;
  return row!;
}

export async function meetingHasDenial(db: Db, meetingId: string): Promise<boolean> {
  const rows = await db`select 1 from meeting_consent where meeting_id = ${meetingId} and not consent_given limit 1`;
  return rows.length > 0;
}

// ------------------------------------------------------------------------------ webhook deliveries

export type DeliveryKind = "new" | "redelivery" | "replay";

/**
 * Note a webhook delivery in the transaction that applies it (so a failed one can come again). A
 * known id signed at the same time is the same request sent again: a replay. A known id with a new
 * signature time is the platform delivering again: acknowledged without a second effect.
 */
export async function recordDelivery(db: Db, platform: string, id: string, signedAt: number, now: Date): Promise<DeliveryKind> {
  const inserted = await db`insert into webhook_delivery (platform, id, signed_at, received_at)
    values (${platform}, ${id}, ${signedAt}, ${now}) on conflict do nothing returning id`;
  if (inserted.length) return "new";
  const [prior] = await db<{ signed_at: string }[]>`select signed_at from webhook_delivery where platform = ${platform} and id = ${id}`;
  return prior && Number(prior.signed_at) === signedAt ? "replay" : "redelivery";
}

export async function purgeDeliveries(db: Db, before: Date): Promise<number> {
  const rows = await db`delete from webhook_delivery where received_at < ${before} returning id`;
  return rows.length;
}
