// SQL of the projection service: applying events to the read model (live tables or a rebuild's
// shadow tables) and reading it. Nothing else in the service touches the database.
import {
  ActionItems,
  ROOM_FEED_CHANNEL,
  StoredParticipant,
  TopicRecord,
  webvttPlainText,
  type ListingScope,
  type MeetingState,
  type RecordingReady,
  type RoomEvent,
  type ScribeEvent,
  type TranscriptListFilters,
  type TranscriptState,
  type TranscriptUpdated,
} from "@scribe/contracts";
import type { Db } from "@scribe/kit";
import { z } from "zod";

/** The read model's tables: the live ones, or a rebuild's shadow tables (same columns). */
export interface ModelTables {
  transcript: string;
  topic: string;
  room: string;
  recording: string;
  meeting: string;
}
export const LIVE_TABLES: ModelTables = {
  transcript: "transcript",
  topic: "topic",
  room: "room",
  recording: "recording",
  meeting: "meeting",
};

/** Channel on which a commit announces `<version> <transcript id>` (read-your-writes waiters listen). */
export const APPLIED_CHANNEL = "projection_applied";

/**
 * The feed lock (see the migration): taken first in every write transaction of the projection, so
 * change_seq values are allocated in commit order and a rebuild's swap can hold every writer off.
 * Taken once per transaction handle: a consumer batch applies many events in one transaction (a
 * savepoint is another handle: a lock taken in a savepoint that rolls back is released with it).
 */
const locked = new WeakSet<object>();
export async function takeFeedLock(db: Db): Promise<void> {
  if (locked.has(db)) return;
  await db`select pg_advisory_xact_lock(hashtext('scribe:projection:change_seq'))`;
  // Outside a transaction (the pool itself) the lock ends with the statement: nothing to remember.
  if ("savepoint" in db) locked.add(db);
}

/** A transcript change that arrived before the transcript itself: retried until it can apply. */
export class TranscriptNotYetKnown extends Error {
  constructor(id: string) {
    super(`transcript ${id} is not in the read model yet`);
    this.name = "TranscriptNotYetKnown";
  }
}

export interface Applied {
  transcriptId: string;
  version: number;
}

export interface ApplyOptions {
  /**
   * NOTIFY `<version> <id>` on APPLIED_CHANNEL when a transcript changed (delivered at commit):
   * read-your-writes waiters listen. Off while building shadow tables nobody reads.
   */
  announce: boolean;
}

/**
 * Apply one event. Every rule is "newer version wins" (full states by `state_version`, the WebVTT
 * by `webvtt_version` (transcript.updated leaves an unchanged one out), topics per
 * position by their version behind the last clear, rooms by their version), so applying events
 * twice or out of order converges to the same model — which is what makes redelivery, re-driving
 * and a rebuild racing the live consumer safe. Each event is one statement, sent before the first
 * await (`applyInOrder` pipelines a batch on that).
 * Returns the transcript version now held when a transcript changed.
 */
export async function applyEvent(db: Db, t: ModelTables, ev: ScribeEvent, opts: ApplyOptions): Promise<Applied | null> {
  switch (ev.type) {
    case "transcript.created":
    case "transcript.updated":
      return applyState(db, t, ev.data, opts);
    case "transcript.completed":
      return applyState(db, t, ev.data.transcript, opts);
    case "transcript.destroyed":
      return applyDestroyed(db, t, ev.data.transcript, ev.time, opts);
    case "transcript.topic.upserted":
      return applyTopic(db, t, ev.data.transcript_id, ev.data.version, ev.data.position, ev.data.topic, opts);
    case "transcript.topics.cleared":
      return applyTopicsCleared(db, t, ev.data.transcript_id, ev.data.version, opts);
    case "room.created":
    case "room.updated":
      await applyRoom(db, t, ev.data, false, opts);
      return null;
    case "room.deleted":
      await applyRoom(db, t, ev.data, true, opts);
      return null;
    case "recording.ready":
      await applyRecording(db, t, ev.data);
      return null;
    case "meeting.created":
    case "meeting.updated":
    case "meeting.deactivated":
    case "meeting.deleted":
      await applyMeeting(db, t, ev.data);
      return null;
    default:
      return null;
  }
}

/**
 * Apply `events` in order with the effect of `applyEvent` on each in turn, in one round trip: each
 * apply is one statement, created (and sent) as it is called, and a transaction's statements run in
 * the order sent, so they are sent pipelined. Waits for every statement, then throws the first
 * failure (the caller redoes the batch event by event to find the failing one).
 */
export async function applyInOrder(db: Db, t: ModelTables, events: readonly ScribeEvent[], opts: ApplyOptions): Promise<void> {
  const outcomes = await Promise.allSettled(events.map((ev) => applyEvent(db, t, ev, opts)));
  const failure = outcomes.find((o) => o.status === "rejected");
  if (failure) throw failure.reason;
}

/** `returning version[, pg_notify(…)]` of a statement that changed a transcript row. */
function returningVersion(db: Db, t: ModelTables, opts: ApplyOptions) {
  const table = db(t.transcript);
  return opts.announce
    ? db`returning ${table}.version, pg_notify(${APPLIED_CHANNEL}, ${table}.version::text || ' ' || ${table}.id)`
    : db`returning ${table}.version`;
}

/** The columns a state sets (everything but versions, topics, cloud video, tombstone and the WebVTT). */
function stateColumns(s: TranscriptUpdated, t: ModelTables, db: Db) {
  // The room's name and sharing as the model knows them now (a room event copies later changes).
  const room =
    s.room_id === null
      ? { room_name: null, room_shared: false }
      : {
          room_name: db`(select name from ${db(t.room)} where id = ${s.room_id} and not deleted)`,
          room_shared: db`coalesce((select is_shared from ${db(t.room)} where id = ${s.room_id} and not deleted), false)`,
        };
  return {
    name: s.name,
    status: s.status,
    error: s.error,
    locked: s.locked,
    duration: s.duration,
    created_at: s.created_at,
    updated_at: s.updated_at,
    title: s.title,
    short_summary: s.short_summary,
    long_summary: s.long_summary,
    action_items: s.action_items === null ? null : db.json(s.action_items),
    participants: db.json(s.participants),
    source_language: s.source_language,
    target_language: s.target_language,
    reviewed: s.reviewed,
    audio_location: s.audio_location,
    audio_deleted: s.audio_deleted,
    user_id: s.user_id,
    share_mode: s.share_mode,
    source_kind: s.source_kind,
    meeting_id: s.meeting_id,
    recording_id: s.recording_id,
    room_id: s.room_id,
    ...room,
    deleted_at: s.deleted_at,
  };
}

const webvttColumns = (webvtt: string | null) => ({ webvtt, webvtt_text: webvttPlainText(webvtt) });

/** Insert, or overwrite an older state; a stale state or a tombstone is left alone. */
function upsertState(db: Db, t: ModelTables, s: TranscriptUpdated, cols: Record<string, unknown>, opts: ApplyOptions) {
  // No `as <alias>`: postgres.js picks the helper's rendering from the last keyword before it.
  const cur = db(t.transcript);
  return db`
    insert into ${cur} ${db({ id: s.id, version: s.version, state_version: s.version, ...cols })}
    on conflict (id) do update set ${db(cols)}, state_version = ${s.version}, version = greatest(${cur}.version, ${s.version})
    where ${cur}.state_version < ${s.version} and ${cur}.destroyed_at is null
    ${returningVersion(db, t, opts)}`;
}

/** `col = excluded.col` when the row's `rule` version is older than `version`, else the column as it is. */
function takenWhenOlder(db: Db, table: string, rule: string, version: number, cols: string[]) {
  const cur = db(table);
  return cols.map(
    (c, i) =>
      db`${i === 0 ? db`` : db`,`} ${db(c)} = case when ${cur}.${db(rule)} < ${version} then excluded.${db(c)} else ${cur}.${db(c)} end`,
  );
}

/**
 * The state by `state_version` and (when the event carries it) the WebVTT by `webvtt_version`, in
 * one statement: a state that arrives after a newer one that left the WebVTT out still brings its
 * WebVTT. One statement, so one row version, and the row is locked after the feed lock (the insert
 * trigger takes it first) even when the caller holds no transaction: two statements on two pooled
 * connections deadlocked, the update locking the row before its trigger waited for the feed lock.
 */
async function applyState(db: Db, t: ModelTables, s: TranscriptUpdated, opts: ApplyOptions): Promise<Applied | null> {
  const carried = s.webvtt === undefined ? null : webvttColumns(s.webvtt);
  const cols: Record<string, unknown> = stateColumns(s, t, db);
  const cur = db(t.transcript);
  const row: Record<string, unknown> = {
    id: s.id,
    version: s.version,
    state_version: s.version,
    ...cols,
    ...(carried ? { ...carried, webvtt_version: s.version } : {}),
  };
  const [applied] = await db<{ version: number }[]>`
    insert into ${cur} ${db(row)}
    on conflict (id) do update set ${takenWhenOlder(db, t.transcript, "state_version", s.version, Object.keys(cols))},
      state_version = greatest(${cur}.state_version, ${s.version}),
      ${carried ? db`${takenWhenOlder(db, t.transcript, "webvtt_version", s.version, [...Object.keys(carried), "webvtt_version"])},` : db``}
      version = greatest(${cur}.version, ${s.version})
    where ${cur}.destroyed_at is null and (${cur}.state_version < ${s.version} ${carried ? db`or ${cur}.webvtt_version < ${s.version}` : db``})
    ${returningVersion(db, t, opts)}`;
  return applied ? { transcriptId: s.id, version: applied.version } : null;
}

/**
 * A destroyed transcript stays as a tombstone: the feed shows it deleted, reads answer 404, and
 * its content (texts, participants, topics) is removed as the user asked.
 */
async function applyDestroyed(db: Db, t: ModelTables, s: TranscriptState, eventTime: string, opts: ApplyOptions): Promise<Applied | null> {
  const cols = {
    ...stateColumns(s, t, db),
    name: "",
    title: null,
    short_summary: null,
    long_summary: null,
    action_items: null,
    participants: db.json([]),
    webvtt: null,
    webvtt_text: "",
    webvtt_version: s.version,
    deleted_at: s.deleted_at ?? eventTime,
    destroyed_at: eventTime,
  };
  const [row] = await db<{ version: number }[]>`
    with up as (${upsertState(db, t, s, cols, opts)}),
      gone as (delete from ${db(t.topic)} where transcript_id = ${s.id} and exists (select 1 from up))
    select version from up`;
  return row ? { transcriptId: s.id, version: row.version } : null;
}

/** A change to a transcript that does not exist (yet) is refused so that it is retried. */
function known(id: string, row: { known: boolean; version: number | null } | undefined): Applied | null {
  if (!row?.known) throw new TranscriptNotYetKnown(id);
  return row.version === null ? null : { transcriptId: id, version: row.version };
}

async function applyTopic(
  db: Db,
  t: ModelTables,
  id: string,
  version: number,
  position: number,
  topic: TopicRecord,
  opts: ApplyOptions,
): Promise<Applied | null> {
  const [tr, tp] = [db(t.transcript), db(t.topic)];
  const [row] = await db<{ known: boolean; version: number | null }[]>`
    with cur as (select topics_reset_version, destroyed_at from ${tr} where id = ${id}),
      ins as (
        insert into ${tp} (transcript_id, position, version, topic)
        select ${id}, ${position}, ${version}, ${db.json(topic)} from cur
        where cur.destroyed_at is null and cur.topics_reset_version < ${version}
        on conflict (transcript_id, position) do update set version = excluded.version, topic = excluded.topic
        where ${tp}.version < excluded.version
        returning 1),
      upd as (
        update ${tr} set version = greatest(${tr}.version, ${version}) where id = ${id} and exists (select 1 from ins)
        ${returningVersion(db, t, opts)})
    select exists (select 1 from cur) as known, (select version from upd) as version`;
  return known(id, row);
}

async function applyTopicsCleared(db: Db, t: ModelTables, id: string, version: number, opts: ApplyOptions): Promise<Applied | null> {
  const [tr, tp] = [db(t.transcript), db(t.topic)];
  const [row] = await db<{ known: boolean; version: number | null }[]>`
    with cur as (select 1 from ${tr} where id = ${id}),
      upd as (
        update ${tr} set topics_reset_version = ${version}, version = greatest(${tr}.version, ${version})
        where id = ${id} and topics_reset_version < ${version} and destroyed_at is null
        ${returningVersion(db, t, opts)}),
      gone as (delete from ${tp} where transcript_id = ${id} and version < ${version} and exists (select 1 from upd))
    select exists (select 1 from cur) as known, (select version from upd) as version`;
  return known(id, row);
}

/** A room change is copied onto its transcripts (name shown and searched, sharing for visibility). */
async function applyRoom(db: Db, t: ModelTables, room: RoomEvent, deleted: boolean, opts: ApplyOptions): Promise<void> {
  const rm = db(t.room);
  const name = deleted ? null : room.name;
  const shared = deleted ? false : room.is_shared;
  const feedSeq = room.feed_seq ?? null;
  await db`
    with up as (
      insert into ${rm} (id, version, name, is_shared, deleted, feed_seq)
      values (${room.id}, ${room.version}, ${room.name}, ${room.is_shared}, ${deleted}, ${feedSeq})
      on conflict (id) do update set version = excluded.version, name = excluded.name, is_shared = excluded.is_shared,
        deleted = excluded.deleted, feed_seq = excluded.feed_seq
      where ${rm}.version < excluded.version
      returning 1)
    update ${db(t.transcript)} set room_name = ${name}, room_shared = ${shared}
    where room_id = ${room.id} and exists (select 1 from up)
      and (room_name is distinct from ${name}::text or room_shared is distinct from ${shared})`;
  // Announced even when a newer version of this room was there: positions up to it are applied.
  if (opts.announce && feedSeq !== null) await db`select pg_notify(${ROOM_FEED_CHANNEL}, ${String(feedSeq)})`;
}

/** The highest rooms' feed position the read model applied (0 before any room event carried one). */
export async function roomFeedPosition(db: Db): Promise<number> {
  const [row] = await db<{ position: string | null }[]>`select max(feed_seq) as position from ${db(LIVE_TABLES.room)}`;
  return Number(row?.position ?? 0);
}

async function applyRecording(db: Db, t: ModelTables, rec: RecordingReady): Promise<void> {
  const multitrack = rec.kind === "multitrack" && rec.tracks.length > 0;
  await db`
    insert into ${db(t.recording)} (id, multitrack) values (${rec.recording_id}, ${multitrack})
    on conflict (id) do update set multitrack = excluded.multitrack`;
}

async function applyMeeting(db: Db, t: ModelTables, m: MeetingState): Promise<void> {
  await db`
    insert into ${db(t.meeting)} (id, version, composed_video_key, composed_video_duration)
    values (${m.id}, ${m.version}, ${m.daily_composed_video_s3_key}, ${m.daily_composed_video_duration})
    on conflict (id) do update set version = excluded.version, composed_video_key = excluded.composed_video_key,
      composed_video_duration = excluded.composed_video_duration
    where ${db(t.meeting)}.version < excluded.version`;
}

// ---------------------------------------------------------------------------------------------
// Reads (always the live tables).

const MINIMAL_COLUMNS = [
  "id",
  "version",
  "user_id",
  "name",
  "status",
  "locked",
  "duration",
  "title",
  "short_summary",
  "long_summary",
  "created_at",
  "share_mode",
  "source_language",
  "target_language",
  "reviewed",
  "meeting_id",
  "source_kind",
  "room_id",
  "room_name",
  "audio_deleted",
  "change_seq",
  "deleted_at",
] as const;

/** What the database returns (parsed at this boundary: jsonb and bigint come back untyped). */
const MinimalRow = z.object({
  id: z.string(),
  version: z.number().int(),
  user_id: z.string().nullable(),
  name: z.string(),
  status: z.enum(["idle", "uploaded", "recording", "processing", "error", "ended"]),
  locked: z.boolean(),
  duration: z.number(),
  title: z.string().nullable(),
  short_summary: z.string().nullable(),
  long_summary: z.string().nullable(),
  created_at: z.date(),
  share_mode: z.enum(["public", "semi-private", "private"]),
  source_language: z.string(),
  target_language: z.string(),
  reviewed: z.boolean(),
  meeting_id: z.string().nullable(),
  source_kind: z.enum(["room", "live", "file"]),
  room_id: z.string().nullable(),
  room_name: z.string().nullable(),
  audio_deleted: z.boolean().nullable(),
  change_seq: z.coerce.number().int(),
  deleted_at: z.date().nullable(),
});
export type MinimalRow = z.infer<typeof MinimalRow>;

const DetailRow = MinimalRow.extend({
  participants: z.array(StoredParticipant),
  action_items: ActionItems.nullable(),
  has_cloud_video: z.boolean(),
  cloud_video_duration: z.number().int().nullable(),
  multitrack: z.boolean(),
});
export type DetailRow = z.infer<typeof DetailRow>;

export async function transcriptById(db: Db, id: string): Promise<DetailRow | null> {
  const rows = await db`
    select ${db(MINIMAL_COLUMNS.map((c) => `t.${c}`))}, t.participants, t.action_items,
      m.composed_video_key is not null as has_cloud_video, m.composed_video_duration as cloud_video_duration,
      coalesce(r.multitrack, false) as multitrack
    from transcript t left join recording r on r.id = t.recording_id left join meeting m on m.id = t.meeting_id
    where t.id = ${id}`;
  return rows[0] ? DetailRow.parse(rows[0]) : null;
}

const StampRow = z.object({
  user_id: z.string().nullable(),
  share_mode: z.enum(["private", "semi-private", "public"]),
  deleted_at: z.date().nullable(),
  change_seq: z.coerce.number().int(),
  meeting_version: z.number().int(),
  multitrack: z.boolean(),
  participant_users: z.string(),
});
export type StampRow = z.infer<typeof StampRow>;

/**
 * What deciding a read of a transcript's document needs without reading the document: READ's
 * facts, what its tag is made of, and the user ids of its participants.
 */
export async function transcriptStamp(db: Db, id: string): Promise<StampRow | null> {
  const rows = await db`
    select t.user_id, t.share_mode, t.deleted_at, t.change_seq,
      coalesce(m.version, 0) as meeting_version, coalesce(r.multitrack, false) as multitrack,
      coalesce((select string_agg(distinct p->>'user_id', ',') from jsonb_array_elements(t.participants) p
        where coalesce(p->>'user_id', '') <> ''), '') as participant_users
    from transcript t left join recording r on r.id = t.recording_id left join meeting m on m.id = t.meeting_id
    where t.id = ${id}`;
  return rows[0] ? StampRow.parse(rows[0]) : null;
}

/** The transcript's topics in order (words included). */
export async function topicsOf(db: Db, id: string): Promise<TopicRecord[]> {
  const rows = await db<{ topic: unknown }[]>`select topic from topic where transcript_id = ${id} order by position`;
  return rows.map((r) => TopicRecord.parse(r.topic));
}

/** The version the read model holds for a transcript (null: not known yet). */
export async function versionOf(db: Db, id: string): Promise<number | null> {
  const [row] = await db<{ version: number }[]>`select version from transcript where id = ${id}`;
  return row ? row.version : null;
}

export interface ListQuery extends TranscriptListFilters {
  scope: ListingScope;
  /** Change-feed mode: deleted rows are included (and ordering may be by change_seq). */
  feed: boolean;
  limit: number;
  offset: number;
}

/** `%` and `_` of a search term are literal characters, not wildcards. */
export function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listTranscripts(db: Db, q: ListQuery): Promise<{ rows: MinimalRow[]; total: number }> {
  const conditions = [
    q.feed ? db`true` : db`deleted_at is null`,
    q.scope.kind === "own_or_shared_rooms"
      ? db`(user_id = ${q.scope.userId} or room_shared)`
      : q.scope.kind === "shared_rooms"
        ? db`room_shared`
        : db`(user_id is null or share_mode = 'public' or room_shared)`,
    q.room_id ? db`room_id = ${q.room_id}` : db`true`,
    q.source_kind ? db`source_kind = ${q.source_kind}` : db`true`,
    q.search_term ? db`title ilike ${likePattern(q.search_term)}` : db`true`,
    q.change_seq_from !== null && q.change_seq_from !== undefined ? db`change_seq > ${q.change_seq_from}` : db`true`,
  ];
  const where = conditions.reduce((acc, c) => db`${acc} and ${c}`);
  const order = q.sort_by === "change_seq" ? db`change_seq asc` : db`created_at desc, id desc`;
  const [rows, [count]] = await Promise.all([
    db`select ${db(MINIMAL_COLUMNS)} from transcript where ${where} order by ${order} limit ${q.limit} offset ${q.offset}`,
    db<{ n: number }[]>`select count(*)::int as n from transcript where ${where}`,
  ]);
  return { rows: rows.map((r) => MinimalRow.parse(r)), total: count!.n };
}
