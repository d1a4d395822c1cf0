// SQL of the transcription service's write side; nothing else in the service touches the transcript table.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { OutgoingEvent } from "@scribe/contracts";
import { RecordingReady, StoredParticipant, TopicRecord, TranscriptState, webvttGzip } from "@scribe/contracts";
import type { Db } from "@scribe/kit";
import { z } from "zod";
import type { Aggregate, LoggedEvent } from "./domain/transcript";

const STATE_COLUMNS = [
  "id",
  "version",
  "name",
  "status",
  "error",
  "locked",
  "duration",
  "created_at",
  "updated_at",
  "title",
  "short_summary",
  "long_summary",
  "action_items",
  "participants",
  "source_language",
  "target_language",
  "reviewed",
  "audio_location",
  "audio_deleted",
  "user_id",
  "share_mode",
  "source_kind",
  "meeting_id",
  "recording_id",
  "room_id",
  "webvtt",
  "deleted_at",
] as const;
const COLUMNS = [...STATE_COLUMNS, "topics", "events", "current_run_id", "completed_run_id", "recording_source"] as const;
type Column = (typeof COLUMNS)[number];
type Row = Record<Column, unknown>;

/**
 * The state's WebVTT when a write did not read it (`loadTranscript(..., { webvtt: false })`): the
 * WebVTT of a long transcript is hundreds of kilobytes that a write which does not change it need
 * not fetch. No event may carry it (`outboxRows` refuses): events leave an unchanged WebVTT out,
 * and the completion, which carries it, reads it (`loads()` in the decider). Random per process and
 * starting with a NUL (which a text column cannot hold), so no content can spell it.
 */
export const WEBVTT_NOT_READ = `\u0000webvtt-not-read:${randomUUID()}`;
/** The placeholder as an event would carry it, as text or compressed (webvtt_gzip: gzip is deterministic). */
const WEBVTT_NOT_READ_JSON = [JSON.stringify(WEBVTT_NOT_READ), JSON.stringify(webvttGzip(WEBVTT_NOT_READ))];

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
const Topics = z.array(TopicRecord);
const Events = z.array(z.object({ event: z.string(), data: z.record(z.string(), z.unknown()) }));

function toAggregate(row: Partial<Row>): Aggregate {
  const state = TranscriptState.parse({
    ...Object.fromEntries(STATE_COLUMNS.map((c) => [c, row[c]])),
    duration: Number(row.duration),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deleted_at: iso(row.deleted_at),
    webvtt: row.webvtt === undefined ? WEBVTT_NOT_READ : row.webvtt,
    participants: z.array(StoredParticipant).parse(row.participants),
  });
  return {
    state,
    topics: row.topics === undefined ? null : Topics.parse(row.topics),
    events: row.events === undefined ? null : (Events.parse(row.events) as LoggedEvent[]),
    current_run_id: row.current_run_id as string | null,
    completed_run_id: row.completed_run_id as string | null,
    recording_source: row.recording_source === null ? null : RecordingReady.parse(row.recording_source),
  };
}

const jsonOf = (db: Db, v: unknown) => (v === null ? null : db.json(v as Parameters<Db["json"]>[0]));

function toRow(db: Db, a: Aggregate): Row {
  const s = a.state;
  return {
    ...s,
    action_items: jsonOf(db, s.action_items),
    participants: jsonOf(db, s.participants),
    topics: jsonOf(db, a.topics ?? []),
    events: jsonOf(db, a.events ?? []),
    current_run_id: a.current_run_id,
    completed_run_id: a.completed_run_id,
    recording_source: jsonOf(db, a.recording_source),
  };
}

export async function insertTranscript(db: Db, a: Aggregate): Promise<void> {
  await db`insert into transcript ${db(toRow(db, a) as unknown as Record<Column, string | null>, ...COLUMNS)}`;
}

/** Every column (tests and tools that set up a row); the write side saves only what changed (`saveChanges`). */
export async function saveTranscript(db: Db, a: Aggregate): Promise<void> {
  const columns = COLUMNS.filter((c) => c !== "id" && c !== "created_at");
  await db`update transcript set ${db(toRow(db, a) as unknown as Record<Column, string | null>, ...columns)} where id = ${a.state.id}`;
}

/** What a change touches besides the state columns (those are compared: they are small, but for the WebVTT). */
export interface ChangedParts {
  topics: boolean;
  /** Entries to append to the event log, unless `resetEvents` writes the whole (new) log. */
  appendedEvents: LoggedEvent[];
  resetEvents: boolean;
  currentRun: boolean;
  completedRun: boolean;
  recordingSource: boolean;
}

/**
 * The columns a change touched, so a write costs what it changes: an untouched topics column (a long
 * transcript's words) is neither sent nor rewritten, an event log entry is appended in SQL.
 */
function changedColumns(db: Db, before: Aggregate, after: Aggregate, parts: ChangedParts): Record<string, unknown> {
  const prev = before.state as unknown as Record<string, unknown>;
  const now = after.state as unknown as Record<string, unknown>;
  const set: Record<string, unknown> = {};
  for (const c of STATE_COLUMNS) {
    if (c === "id" || c === "created_at" || isDeepStrictEqual(prev[c], now[c])) continue;
    set[c] = c === "action_items" || c === "participants" ? jsonOf(db, now[c]) : now[c];
  }
  if (parts.topics) set.topics = jsonOf(db, after.topics ?? []);
  if (parts.resetEvents) set.events = jsonOf(db, after.events ?? []);
  else if (parts.appendedEvents.length) set.events = db`events || ${JSON.stringify(parts.appendedEvents)}::text::jsonb`;
  if (parts.currentRun) set.current_run_id = after.current_run_id;
  if (parts.completedRun) set.completed_run_id = after.completed_run_id;
  if (parts.recordingSource) set.recording_source = jsonOf(db, after.recording_source);
  return set;
}

const setOf = (db: Db, set: Record<string, unknown>) => db(set as Record<string, string | null>, ...Object.keys(set));

/** Write the columns the change touched (see changedColumns), in the caller's transaction. */
export async function saveChanges(db: Db, before: Aggregate, after: Aggregate, parts: ChangedParts): Promise<void> {
  const set = changedColumns(db, before, after, parts);
  if (Object.keys(set).length === 0) return;
  await db`update transcript set ${setOf(db, set)} where id = ${after.state.id}`;
}

/** The outbox rows of `events` (as kit's `emit` writes them), `e.position` their order: a fragment the caller may join and must order. */
function outboxRows(db: Db, events: readonly OutgoingEvent[]) {
  const payloads = events.map((e) => JSON.stringify(e.event));
  if (payloads.some((p) => WEBVTT_NOT_READ_JSON.some((placeholder) => p.includes(placeholder))))
    throw new Error("an event carries the WebVTT its write did not read: the command must load it (loads() in the decider)");
  return db`select e.event_id, e.subject, e.payload
    from unnest(${events.map((e) => e.event.id)}::uuid[], ${events.map((e) => e.subject)}::text[], ${payloads}::text[])
      with ordinality as e(event_id, subject, payload, position)`;
}

/** Record `events` in the outbox, in order, in the caller's transaction. */
export async function emitEvents(db: Db, events: readonly OutgoingEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db`insert into outbox (event_id, subject, payload) ${outboxRows(db, events)} order by e.position`;
}

/**
 * Save a change decided on the row as `loadSnapshot` read it and record its events, in one statement
 * (atomic without a transaction, one round trip), only if nobody wrote the row since: the row
 * version (xmin) changes with every write to the row, by anyone. The update takes the row lock and,
 * when another writer got there first, PostgreSQL re-checks the condition on the row as that writer
 * left it; so a write decided on an old row changes nothing. The outbox insert runs under that
 * lock after the update, so the transcript's events are queued in the order their changes were
 * made. Returns the row's new version; null when the row changed (or went) since it was read.
 */
export async function saveIfUnchanged(
  db: Db,
  before: Snapshot,
  after: Aggregate,
  parts: ChangedParts,
  events: readonly OutgoingEvent[],
): Promise<string | null> {
  const id = before.aggregate.state.id;
  // Events that touch no column still write the row: their order is kept by its lock.
  const set = { version: after.state.version, ...changedColumns(db, before.aggregate, after, parts) };
  const written = db`update transcript set ${setOf(db, set)} where id = ${id} and xmin = ${before.rowVersion}::xid
    returning xmin::text as row_version`;
  const emitted = events.length
    ? db`, emitted as (insert into outbox (event_id, subject, payload) ${outboxRows(db, events)} cross join written order by e.position)`
    : db``;
  const [row] = await db<{ row_version: string }[]>`with written as (${written}) ${emitted} select row_version from written`;
  return row?.row_version ?? null;
}

export async function deleteTranscript(db: Db, id: string): Promise<void> {
  await db`delete from transcript where id = ${id}`;
}

type PartsRead = { topics?: boolean; events?: boolean; webvtt?: boolean };

function columnsRead(opts: PartsRead): Column[] {
  const unread = new Set<Column>();
  if (opts.topics === false) unread.add("topics");
  if (opts.events === false) unread.add("events");
  if (opts.webvtt === false) unread.add("webvtt");
  return COLUMNS.filter((c) => !unread.has(c));
}

/**
 * `forUpdate` locks the row: every change of one transcript is serialised, so versions never fork.
 * `topics: false` / `events: false` leave those (long) columns unread: null in the aggregate;
 * `webvtt: false` leaves the WebVTT unread: WEBVTT_NOT_READ in the state (see there).
 */
export async function loadTranscript(db: Db, id: string, opts: PartsRead & { forUpdate?: boolean } = {}): Promise<Aggregate | null> {
  const columns = columnsRead(opts);
  const rows = opts.forUpdate
    ? await db<Row[]>`select ${db(columns)} from transcript where id = ${id} for update`
    : await db<Row[]>`select ${db(columns)} from transcript where id = ${id}`;
  return rows[0] ? toAggregate(rows[0]) : null;
}

/** A transcript as read for a write without a lock (`saveIfUnchanged`): `rowVersion` is the row's xmin. */
export interface Snapshot {
  aggregate: Aggregate;
  rowVersion: string;
}

/** The transcript unlocked, with its row version (parts as `loadTranscript`'s). */
export async function loadSnapshot(db: Db, id: string, opts: PartsRead = {}): Promise<Snapshot | null> {
  const [row] = await db<(Row & { row_version: string })[]>`select ${db(columnsRead(opts))}, xmin::text as row_version
    from transcript where id = ${id}`;
  return row ? { aggregate: toAggregate(row), rowVersion: row.row_version } : null;
}

/** The row's version now (see Snapshot); null when the transcript is gone. */
export async function rowVersionOf(db: Db, id: string): Promise<string | null> {
  const [row] = await db<{ row_version: string }[]>`select xmin::text as row_version from transcript where id = ${id}`;
  return row?.row_version ?? null;
}

/** The transcript made for a platform recording (one per recording). */
export async function transcriptIdOfRecording(db: Db, recordingId: string): Promise<string | null> {
  const rows = await db<{ id: string }[]>`select id from transcript where recording_id = ${recordingId} order by created_at limit 1`;
  return rows[0]?.id ?? null;
}

// ---- retention --------------------------------------------------------------------------------

/** Up to `limit` anonymous live transcripts created before `cutoff`, locked; rows another run holds are skipped. */
export async function lockExpiryCandidates(tx: Db, cutoff: Date, limit: number): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`select id from transcript
    where user_id is null and deleted_at is null and created_at < ${cutoff}
    order by created_at limit ${limit} for update skip locked`;
  return rows.map((r) => r.id);
}

export async function lastRetentionDay(db: Db): Promise<string | null> {
  const [r] = await db<{ day: string | null }[]>`select to_char(max(run_date), 'YYYY-MM-DD') as day from retention_run`;
  return r?.day ?? null;
}

/** Claims today's run; false when another replica has it. */
export async function startRetentionRun(db: Db, day: string, now: Date): Promise<boolean> {
  const rows =
    await db`insert into retention_run (run_date, started_at) values (${day}::date, ${now}) on conflict (run_date) do nothing returning run_date`;
  return rows.length > 0;
}

export async function finishRetentionRun(db: Db, day: string, expired: number, now: Date): Promise<void> {
  await db`update retention_run set finished_at = ${now}, expired = ${expired} where run_date = ${day}::date`;
}

export async function abandonRetentionRun(db: Db, day: string): Promise<void> {
  await db`delete from retention_run where run_date = ${day}::date and finished_at is null`;
}
