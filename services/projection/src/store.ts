// SQL of the projection service: applying events to the read model (live tables or a rebuild's
// shadow tables) and reading it. Nothing else in the service touches the database.
import {
  ActionItems,
  ROOM_FEED_CHANNEL,
  StoredParticipant,
  TopicRecord,
  carriedWebvtt,
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
  /** The transcripts' search copies and their pair tokens (migration 0009): written by the search fill, deleted with their content. */
  search: string;
  searchPairs: string;
}
export const LIVE_TABLES: ModelTables = {
  transcript: "transcript",
  topic: "topic",
  room: "room",
  recording: "recording",
  meeting: "meeting",
  search: "transcript_search",
  searchPairs: "transcript_search_pairs",
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
const feedLockQuery = (db: Db) => db`select pg_advisory_xact_lock(hashtext('scribe:projection:change_seq'))`;
export async function takeFeedLock(db: Db): Promise<void> {
  if (locked.has(db)) return;
  await feedLockQuery(db);
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
    case "transcript.completed":
      return appliedTo(stateOf(ev)!.id, await applyRun(db, t, [ev], opts));
    case "transcript.destroyed":
      return applyDestroyed(db, t, ev.data.transcript, ev.time, opts);
    case "transcript.topic.upserted":
      return appliedTo(ev.data.transcript_id, await applyRun(db, t, [ev], opts));
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
 * Apply `events` with the effect of `applyEvent` on each in turn, in one round trip and few
 * statements: a run of states and topic upserts (what a transcript's processing sends) is one
 * statement (`applyRun`) that writes each transcript's row once, however many of the run's events
 * touch it; any other event (clears, destructions, rooms, recordings, meetings) ends the run and is
 * applied alone, in its place. Statements are sent as they are created (a transaction runs them in
 * the order sent), then every one is awaited and the first failure thrown (the caller redoes the
 * batch event by event to find the failing one).
 */
export async function applyInOrder(db: Db, t: ModelTables, batch: readonly ScribeEvent[] | InOrderPlan, opts: ApplyOptions): Promise<void> {
  const { steps } = batch instanceof InOrderPlan ? batch : planInOrder(batch);
  const sent = steps.map((step) => (Array.isArray(step) ? applyChunks(db, t, step, opts) : applyEvent(db, t, step, opts)));
  const outcomes = await Promise.allSettled(sent);
  const failure = outcomes.find((o) => o.status === "rejected");
  if (failure) throw failure.reason;
}

/**
 * A batch made ready for `applyInOrder` without the database: its runs folded and serialised, the
 * other events in their places. The live consumer makes it while the batch before is applied.
 */
export class InOrderPlan {
  constructor(readonly steps: readonly (RunChunk[] | ScribeEvent)[]) {}
}

export function planInOrder(events: readonly ScribeEvent[]): InOrderPlan {
  const steps: (RunChunk[] | ScribeEvent)[] = [];
  let run: ScribeEvent[] = [];
  for (const ev of events) {
    if (inRun(ev)) {
      run.push(ev);
      continue;
    }
    if (run.length > 0) steps.push(runChunks(foldRun(run)));
    run = [];
    steps.push(ev);
  }
  if (run.length > 0) steps.push(runChunks(foldRun(run)));
  return new InOrderPlan(steps);
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
  const cols: Record<string, unknown> = { ...room };
  for (const c of STATE_COLUMNS) cols[c] = STATE_COLUMN_TYPES[c] === "jsonb" && s[c] !== null ? db.json(s[c]) : s[c];
  return cols;
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

/** `col = <source>.col` when the row's `rule` version is older than the source row's, else the column as it is. */
function takenWhenOlder(db: Db, table: string, source: string, rule: string, cols: readonly string[]) {
  const [cur, src] = [db(table), db(source)];
  return cols.map((c) => db`${db(c)} = case when ${cur}.${db(rule)} < ${src}.${db(rule)} then ${src}.${db(c)} else ${cur}.${db(c)} end`);
}

/** The state an event carries, for the events that carry a full state to apply (not a destruction). */
function stateOf(ev: ScribeEvent): TranscriptUpdated | null {
  switch (ev.type) {
    case "transcript.created":
    case "transcript.updated":
      return ev.data;
    case "transcript.completed":
      return ev.data.transcript;
    default:
      return null;
  }
}

/** The columns a state sets from its event's data, with their SQL types (the room's come from the room table). */
const STATE_COLUMN_TYPES = {
  name: "text",
  status: "text",
  error: "text",
  locked: "boolean",
  duration: "double precision",
  created_at: "timestamptz",
  updated_at: "timestamptz",
  title: "text",
  short_summary: "text",
  long_summary: "text",
  action_items: "jsonb",
  participants: "jsonb",
  source_language: "text",
  target_language: "text",
  reviewed: "boolean",
  audio_location: "text",
  audio_deleted: "boolean",
  user_id: "text",
  share_mode: "text",
  source_kind: "text",
  meeting_id: "text",
  recording_id: "text",
  room_id: "text",
  deleted_at: "timestamptz",
} as const satisfies Partial<Record<keyof TranscriptState, string>>;
const STATE_COLUMNS = Object.keys(STATE_COLUMN_TYPES) as (keyof typeof STATE_COLUMN_TYPES)[];
const WEBVTT_COLUMNS = ["webvtt", "webvtt_text", "webvtt_version"];
/** The record a folded state travels as (one element of the statement's JSON array). */
const STATE_RECORD = [
  "id text",
  "version integer",
  ...STATE_COLUMNS.map((c) => `${c} ${STATE_COLUMN_TYPES[c]}`),
  "webvtt text",
  "webvtt_text text",
  "webvtt_version integer",
].join(", ");
/**
 * Constant column names as a list, optionally qualified (the `db(names)` helper renders by the
 * keyword before it: after `insert` it would add `values`).
 */
function columnList(db: Db, names: readonly string[], qualifier?: string) {
  return db.unsafe(names.map((c) => (qualifier ? `${qualifier}."${c}"` : `"${c}"`)).join(", "));
}
/** A statement's JSON payload stays under this many characters (WebVTTs run to ~0.5 MB each): more rows go in another statement. */
const STATEMENT_PAYLOAD_CHARS = 16 * 1024 * 1024;

/** Events a run folds into one statement: full states (not a destruction) and topic upserts. */
function inRun(ev: ScribeEvent): boolean {
  return stateOf(ev) !== null || ev.type === "transcript.topic.upserted";
}

/** What a run brings one transcript: its newest state, the newest WebVTT carried (with its version), per position the newest topic. */
interface RunFold {
  state: TranscriptUpdated | null;
  webvtt: { version: number; webvtt: string | null } | null;
  topics: Map<number, { version: number; topic: TopicRecord }>;
}

/** Per transcript; of equal versions the first is kept, as applying them in turn keeps it. */
function foldRun(events: readonly ScribeEvent[]): Map<string, RunFold> {
  const folds = new Map<string, RunFold>();
  const foldOf = (id: string) => {
    const f = folds.get(id) ?? { state: null, webvtt: null, topics: new Map() };
    folds.set(id, f);
    return f;
  };
  for (const ev of events) {
    const s = stateOf(ev);
    if (s) {
      const f = foldOf(s.id);
      if (!f.state || s.version > f.state.version) f.state = s;
      const webvtt = carriedWebvtt(s);
      if (webvtt !== undefined && (!f.webvtt || s.version > f.webvtt.version)) f.webvtt = { version: s.version, webvtt };
    } else if (ev.type === "transcript.topic.upserted") {
      const { transcript_id, version, position, topic } = ev.data;
      const topics = foldOf(transcript_id).topics;
      if ((topics.get(position)?.version ?? 0) < version) topics.set(position, { version, topic });
    }
  }
  return folds;
}

interface TopicRecords {
  transcriptIds: string[];
  versions: number[];
  positions: number[];
  /**
   * Each topic's JSON, sent joined by newlines (JSON.stringify leaves none in its output): parsed
   * one by one, topics cost a fraction of what they cost inside one JSON document (jsonb_to_recordset
   * converts nested values through text), and the text needs no escaping as an array's would.
   */
  topics: string[];
}

/** A statement's worth of a run: its states' JSON records and its topics. */
interface RunChunk {
  states: string[];
  topics: TopicRecords;
}

/** A run's records, in chunks of at most STATEMENT_PAYLOAD_CHARS of JSON (a transcript's records stay in one). */
function runChunks(folds: Map<string, RunFold>): RunChunk[] {
  const empty = (): RunChunk => ({ states: [], topics: { transcriptIds: [], versions: [], positions: [], topics: [] } });
  const chunks = [empty()];
  let size = 0;
  for (const [id, f] of folds) {
    let chunk = chunks.at(-1)!;
    const state = f.state && JSON.stringify(stateRecord(id, f.state, f.webvtt));
    const topics = [...f.topics].map(([position, { version, topic }]) => ({ position, version, json: JSON.stringify(topic) }));
    const added = (state?.length ?? 0) + topics.reduce((n, x) => n + x.json.length, 0);
    if (size + added > STATEMENT_PAYLOAD_CHARS && size > 0) {
      chunk = empty();
      chunks.push(chunk);
      size = 0;
    }
    if (state) chunk.states.push(state);
    for (const x of topics) {
      chunk.topics.transcriptIds.push(id);
      chunk.topics.versions.push(x.version);
      chunk.topics.positions.push(x.position);
      chunk.topics.topics.push(x.json);
    }
    size += added;
  }
  return chunks;
}

/** The record a state travels as: its columns, and the WebVTT columns when the run carried one. */
function stateRecord(id: string, state: TranscriptUpdated, webvtt: RunFold["webvtt"]): Record<string, unknown> {
  const record: Record<string, unknown> = { id, version: state.version, webvtt: null, webvtt_text: null, webvtt_version: 0 };
  for (const c of STATE_COLUMNS) record[c] = state[c];
  if (webvtt) Object.assign(record, webvttColumns(webvtt.webvtt), { webvtt_version: webvtt.version });
  return record;
}

/**
 * A run of states and topic upserts in one statement (per payload chunk) that writes each
 * transcript's row once: the row's change_seq and index entries (the search vector's among them)
 * are rewritten per write, which made a transcript's five processing events five times the work.
 * The effect is that of applying the events in turn because every rule is "newer version wins" per
 * column group and max is associative (`foldRun` keeps the newest of each group):
 * - the state by `state_version`, and the WebVTT (when one was carried) by `webvtt_version`, so a
 *   state that arrives after a newer one that left the WebVTT out still brings its WebVTT;
 * - a topic is taken when its transcript is known and not destroyed, no clear of its version or
 *   later came first, and its position holds an older one; a transcript that took one has its
 *   version moved up to the topic's (and its row rewritten: the feed shows the change), in the same
 *   write as its state when the run has one;
 * - a topic of a transcript that is neither in the model nor created by the run is refused so that
 *   it is retried (TranscriptNotYetKnown; the caller's transaction rolls the statement back). States
 *   are taken first, so a topic whose transcript the run creates later applies.
 * Rows the model holds are updated and only the others inserted: an upsert (`insert … on conflict
 * do update`) fires the insert trigger on the proposed row first, which computed a full search
 * vector (a long transcript's caption text: milliseconds) and drew a change_seq, both thrown away
 * on the conflict, before the update trigger computed the vector again. The statement's snapshot
 * tells which rows exist; a row another writer inserted since then still conflicts and is resolved
 * by the same rules (the projection, the one ordered writer, holds the feed lock: it does not race).
 * On the live tables a run locks rows only after the feed lock even when the caller holds no
 * transaction: the updates' rows are joined with the lock taken first, and the topic rows are
 * written last (two statements on two pooled connections deadlocked when an update locked the row
 * before its trigger waited for the lock). Returns the versions now held by the transcripts that
 * changed.
 */
async function applyRun(db: Db, t: ModelTables, events: readonly ScribeEvent[], opts: ApplyOptions): Promise<Applied[]> {
  return applyChunks(db, t, runChunks(foldRun(events)), opts);
}

/** `applyRun` of a run already folded and serialised (`runChunks`). */
async function applyChunks(db: Db, t: ModelTables, chunks: readonly RunChunk[], opts: ApplyOptions): Promise<Applied[]> {
  const [tr, tp] = [db(t.transcript), db(t.topic)];
  const taken = (source: string) => {
    const cols = [
      ...takenWhenOlder(db, t.transcript, source, "state_version", [...STATE_COLUMNS, "room_name", "room_shared"]),
      ...takenWhenOlder(db, t.transcript, source, "webvtt_version", WEBVTT_COLUMNS),
    ];
    return db`${cols.map((x, i) => (i === 0 ? x : db`, ${x}`))},
      state_version = greatest(${tr}.state_version, ${db(source)}.state_version),
      version = greatest(${tr}.version, ${db(source)}.version)`;
  };
  const changes = (source: string) => db`${tr}.destroyed_at is null and (${tr}.state_version < ${db(source)}.state_version
    or ${tr}.webvtt_version < ${db(source)}.webvtt_version or ${db(source)}.id in (select id from bump))`;
  const columns = columnList(db, ["id", "version", "state_version", ...STATE_COLUMNS, "room_name", "room_shared", ...WEBVTT_COLUMNS]);
  // Shadow tables of a rebuild are written without the feed lock (their trigger does not take it either).
  const feedLock = t.transcript === LIVE_TABLES.transcript ? feedLockQuery(db) : db`select`;
  // Created (and so sent, in this order) before the first await.
  const statements = chunks.map(
    ({ states, topics }) => db<{ id: string; version: number | null; known: boolean }[]>`
      with s as (
        select * from jsonb_to_recordset(${`[${states.join(",")}]`}::text::jsonb) as s(${db.unsafe(STATE_RECORD)})),
      x as (
        select transcript_id, version, position, topic::jsonb as topic
        from unnest(${topics.transcriptIds}::text[], ${topics.versions}::int[], ${topics.positions}::int[],
          string_to_array(${topics.topics.join("\n")}, E'\n'))
          as x(transcript_id, version, position, topic)),
      cur as (
        select id, topics_reset_version, destroyed_at from ${tr}
        where id in (select id from s union all select transcript_id from x)),
      took as materialized (
        select x.* from x
          left join cur on cur.id = x.transcript_id
          left join ${tp} held on held.transcript_id = x.transcript_id and held.position = x.position
        where (cur.id is not null or x.transcript_id in (select id from s))
          and cur.destroyed_at is null and coalesce(cur.topics_reset_version, 0) < x.version
          and (held.version is null or held.version < x.version)),
      bump as (select transcript_id as id, max(version) as version from took group by transcript_id),
      ins as (
        insert into ${tp} (transcript_id, position, version, topic)
        select transcript_id, position, version, topic from took
        on conflict (transcript_id, position) do update set version = excluded.version, topic = excluded.topic
        where ${tp}.version < excluded.version),
      p as (
        select s.id, greatest(s.version, bump.version) as version, s.version as state_version, ${columnList(db, STATE_COLUMNS, "s")},
          r.name as room_name, coalesce(r.is_shared, false) as room_shared, ${columnList(db, WEBVTT_COLUMNS, "s")}
        from s left join bump on bump.id = s.id left join ${db(t.room)} r on r.id = s.room_id and not r.deleted),
      fl as (${feedLock}),
      stu as (
        update ${tr} set ${taken("p")} from p, fl
        where ${tr}.id = p.id and ${changes("p")}
        ${returningVersion(db, t, opts)}, ${tr}.id),
      sti as (
        insert into ${tr} (${columns}) select ${columns} from p where p.id not in (select id from cur)
        on conflict (id) do update set ${taken("excluded")} where ${changes("excluded")}
        ${returningVersion(db, t, opts)}, ${tr}.id),
      upd as (
        update ${tr} set version = greatest(${tr}.version, bump.version) from bump, fl
        where ${tr}.id = bump.id and bump.id not in (select id from s)
        ${returningVersion(db, t, opts)}, ${tr}.id)
    select id, version, true as known from stu
    union all select id, version, true from sti
    union all select id, version, true from upd
    union all select distinct transcript_id, null::integer, false from x
      where transcript_id not in (select id from cur) and transcript_id not in (select id from s)`,
  );
  const rows = (await Promise.all(statements)).flat();
  const unknown = rows.find((r) => !r.known);
  if (unknown) throw new TranscriptNotYetKnown(unknown.id);
  return rows.map((r) => ({ transcriptId: r.id, version: r.version! }));
}

/**
 * A destroyed transcript stays as a tombstone: the feed shows it deleted, reads answer 404, and
 * its content (texts, participants, topics, its search copy) is removed as the user asked.
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
      gone as (delete from ${db(t.topic)} where transcript_id = ${s.id} and exists (select 1 from up)),
      unsearched as (delete from ${db(t.search)} where id = ${s.id} and exists (select 1 from up)),
      unpaired as (delete from ${db(t.searchPairs)} where id = ${s.id} and exists (select 1 from up))
    select version from up`;
  return row ? { transcriptId: s.id, version: row.version } : null;
}

/** The entry of `id` among the transcripts a statement changed (null: it changed nothing of it). */
function appliedTo(id: string, applied: Applied[]): Applied | null {
  return applied.find((a) => a.transcriptId === id) ?? null;
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
  if (!row?.known) throw new TranscriptNotYetKnown(id);
  return row.version === null ? null : { transcriptId: id, version: row.version };
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
