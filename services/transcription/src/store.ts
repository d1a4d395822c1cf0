// SQL of the transcription service's write side; nothing else in the service touches the transcript table.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { OutgoingEvent } from "@scribe/contracts";
import { RecordingReady, StoredParticipant, TopicRecord, TranscriptState, webvttGzip } from "@scribe/contracts";
import { emitSerialised, type Db } from "@scribe/kit";
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
const COLUMNS = [...STATE_COLUMNS, "topics", "current_run_id", "completed_run_id", "recording_source"] as const;
type Column = (typeof COLUMNS)[number];
/** A transcript row as read, with its event log (or the part of it read) from transcript_event. */
type Row = Record<Column | "events", unknown>;

/**
 * The state's WebVTT when a write did not read it (`loadTranscript(..., { webvtt: false })`): the
 * WebVTT of a long transcript is hundreds of kilobytes that a write which does not change it need
 * not fetch. No event may carry it (`outboxPayloads` refuses): events leave an unchanged WebVTT out,
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

function toRow(db: Db, a: Aggregate): Record<Column, unknown> {
  const s = a.state;
  return {
    ...s,
    action_items: jsonOf(db, s.action_items),
    participants: jsonOf(db, s.participants),
    topics: jsonOf(db, a.topics ?? []),
    current_run_id: a.current_run_id,
    completed_run_id: a.completed_run_id,
    recording_source: jsonOf(db, a.recording_source),
  };
}

/** An event log entry as stored: the run that appended it besides the entry. */
export type LogEntry = LoggedEvent & { run_id: string | null };

/** The transcript_event rows of `entries`, `e.position` their order: a fragment the caller must order. */
function logRows(db: Db, entries: readonly LogEntry[]) {
  return db`select e.run_id, e.event, e.data::jsonb as data, e.position
    from unnest(${entries.map((e) => e.run_id)}::text[], ${entries.map((e) => e.event)}::text[],
      ${entries.map((e) => JSON.stringify(e.data))}::text[]) with ordinality as e(run_id, event, data, position)`;
}

/**
 * The log's part of a statement that writes the transcript row in a CTE named `written`: the log
 * emptied (`reset`) and `entries` appended in order, only if the row was written (joined with it),
 * so the log changes in the same statement as the row, under its lock. One statement, as the
 * callers' pipelined transactions (readThenWrite) commit right after the statements they sent.
 */
function logWritten(db: Db, id: string, reset: boolean, entries: readonly LogEntry[]) {
  // The delete does not see the rows this statement inserts (one snapshot): it empties the log as it was.
  const cleared = reset
    ? db`, cleared as (delete from transcript_event where transcript_id = ${id} and exists (select from written))`
    : db``;
  const logged = entries.length
    ? db`, logged as (insert into transcript_event (transcript_id, run_id, event, data)
        select ${id}, l.run_id, l.event, l.data from (${logRows(db, entries)}) as l cross join written order by l.position)`
    : db``;
  return db`${cleared} ${logged}`;
}

const runEntries = (a: Aggregate): LogEntry[] => (a.events ?? []).map((e) => ({ ...e, run_id: a.current_run_id }));

/** A new transcript with its event log (empty but in tests). */
export async function insertTranscript(db: Db, a: Aggregate): Promise<void> {
  const row = db(toRow(db, a) as unknown as Record<Column, string | null>, ...COLUMNS);
  await db`with written as (insert into transcript ${row} returning id) ${logWritten(db, a.state.id, false, runEntries(a))}
    select from written`;
}

/** Every column, and the event log when `a` holds it (tests and tools that set up a row); the write side saves only what changed (`saveChanges`). */
export async function saveTranscript(db: Db, a: Aggregate): Promise<void> {
  const columns = COLUMNS.filter((c) => c !== "id" && c !== "created_at");
  const set = db(toRow(db, a) as unknown as Record<Column, string | null>, ...columns);
  const log = a.events === null ? db`` : logWritten(db, a.state.id, true, runEntries(a));
  await db`with written as (update transcript set ${set} where id = ${a.state.id} returning id) ${log} select from written`;
}

/** What a change touches besides the state columns (those are compared: they are small, but for the WebVTT). */
export interface ChangedParts {
  topics: boolean;
  /** Entries to append to the event log (after emptying it when `resetEvents`). */
  appendedEvents: LogEntry[];
  /** A new run: the log starts again. */
  resetEvents: boolean;
  currentRun: boolean;
  completedRun: boolean;
  recordingSource: boolean;
}

/**
 * The columns a change touched, so a write costs what it changes: an untouched topics column (a long
 * transcript's words) is neither sent nor rewritten. The event log is rows of its own (`logWritten`).
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
  if (parts.currentRun) set.current_run_id = after.current_run_id;
  if (parts.completedRun) set.completed_run_id = after.completed_run_id;
  if (parts.recordingSource) set.recording_source = jsonOf(db, after.recording_source);
  return set;
}

const setOf = (db: Db, set: Record<string, unknown>) => db(set as Record<string, string | null>, ...Object.keys(set));

const logChanged = (parts: ChangedParts) => parts.resetEvents || parts.appendedEvents.length > 0;

/**
 * Write the columns the change touched (see changedColumns) and the event log's new entries, in the
 * caller's transaction, which holds the row's lock.
 */
export async function saveChanges(db: Db, before: Aggregate, after: Aggregate, parts: ChangedParts): Promise<void> {
  const id = after.state.id;
  const set = changedColumns(db, before, after, parts);
  // A change of the log writes the row too: its version (xmin) is what an unlocked writer's guard
  // checks (saveIfUnchanged), and that writer may have decided on the log as it was.
  if (logChanged(parts)) set.version = after.state.version;
  if (Object.keys(set).length === 0) return;
  await db`with written as (update transcript set ${setOf(db, set)} where id = ${id} returning id)
    ${logWritten(db, id, parts.resetEvents, parts.appendedEvents)} select from written`;
}

/** The events' outbox payloads (as kit's `emit` writes them), refused if one carries the WebVTT placeholder. */
function outboxPayloads(events: readonly OutgoingEvent[]): string[] {
  const payloads = events.map((e) => JSON.stringify(e.event));
  if (payloads.some((p) => WEBVTT_NOT_READ_JSON.some((placeholder) => p.includes(placeholder))))
    throw new Error("an event carries the WebVTT its write did not read: the command must load it (loads() in the decider)");
  return payloads;
}

/**
 * The insert of `events` into the outbox, in order, only if the statement's CTE `written` wrote the
 * row (joined with it). Most writes emit one event: it goes as plain parameters, as a text array
 * would escape (copy) its payload on the way; several go as arrays, one statement for any count.
 */
function outboxInsertAfterWritten(db: Db, events: readonly OutgoingEvent[]) {
  const payloads = outboxPayloads(events);
  if (events.length === 1)
    return db`insert into outbox (event_id, subject, payload)
      select ${events[0]!.event.id}::uuid, ${events[0]!.subject}::text, ${payloads[0]!}::text from written`;
  return db`insert into outbox (event_id, subject, payload) select e.event_id, e.subject, e.payload
    from unnest(${events.map((e) => e.event.id)}::uuid[], ${events.map((e) => e.subject)}::text[], ${payloads}::text[])
      with ordinality as e(event_id, subject, payload, position)
    cross join written order by e.position`;
}

/** Record `events` in the outbox, in order, in the caller's transaction (kit's, once they passed the WebVTT check). */
export async function emitEvents(db: Db, events: readonly OutgoingEvent[]): Promise<void> {
  await emitSerialised(db, events, outboxPayloads(events));
}

/**
 * Save a change decided on the row as `loadSnapshot` read it and record its events, in one statement
 * (atomic without a transaction, one round trip), only if nobody wrote the row since: the row
 * version (xmin) changes with every write to the row, by anyone. The update takes the row lock and,
 * when another writer got there first, PostgreSQL re-checks the condition on the row as that writer
 * left it; so a write decided on an old row changes nothing. The outbox insert runs under that
 * lock after the update, so the transcript's events are queued in the order their changes were
 * made. Returns the row's new version; null when the row changed (or went) since it was read, or
 * the log holds the entry the decision took it not to (`assumedAbsent`).
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
  const unchanged = db`id = ${id} and xmin = ${before.rowVersion}::xid`;
  // At this row version the log is as the decision took it: every change of the log writes the row.
  const guard = before.assumedAbsent
    ? [
        unchanged,
        db`and not exists (select from transcript_event e where e.transcript_id = ${id} and ${equalEntry(db, before.assumedAbsent)})`,
      ]
    : unchanged;
  // The statement's parts as a list of fragments (postgres.js joins them), leaving out those with
  // nothing to do: the pipelines' most frequent write runs through here, and every fragment costs.
  const statement = [db`with written as (update transcript set ${setOf(db, set)} where ${guard} returning xmin::text as row_version)`];
  if (logChanged(parts)) statement.push(logWritten(db, id, parts.resetEvents, parts.appendedEvents));
  if (events.length) statement.push(db`, emitted as (${outboxInsertAfterWritten(db, events)})`);
  const [row] = await db<{ row_version: string }[]>`${statement} select row_version from written`;
  return row?.row_version ?? null;
}

/** The transcript and (by its foreign key's cascade) its event log. */
export async function deleteTranscript(db: Db, id: string): Promise<void> {
  await db`delete from transcript where id = ${id}`;
}

/**
 * The parts of a transcript a read leaves out (null in the aggregate) or narrows. `events`: the
 * whole log (true, the default), none (false), or only the entries equal to the one given: what the
 * duplicate rule reads (`loads()` in the decider), an index probe however long the log.
 */
export type PartsRead = { topics?: boolean; events?: boolean | LoggedEvent; webvtt?: boolean };

type Fragment = ReturnType<Db["unsafe"]>;

function columnsRead(db: Db, opts: PartsRead) {
  const unread = new Set<Column>();
  if (opts.topics === false) unread.add("topics");
  if (opts.webvtt === false) unread.add("webvtt");
  return db(COLUMNS.filter((c) => !unread.has(c)));
}

/** A condition on transcript_event `e`: the entry equals `entry` (found through the content index). */
function equalEntry(db: Db, entry: LoggedEvent) {
  const data = JSON.stringify(entry.data);
  return db`e.event = ${entry.event} and md5(e.data::text) = md5(${data}::text::jsonb::text) and e.data = ${data}::text::jsonb`;
}

/** The log of the transcript `transcriptId` (a value or an SQL fragment), or its entries equal to `only`, as a jsonb array in order. */
function logRead(db: Db, transcriptId: string | Fragment, only: LoggedEvent | true) {
  const equal = only === true ? db`` : db`and ${equalEntry(db, only)}`;
  return db`(select coalesce(jsonb_agg(jsonb_build_object('event', e.event, 'data', e.data) order by e.position), '[]')
    from transcript_event e where e.transcript_id = ${transcriptId} ${equal})`;
}

/** The row's columns and, in the same snapshot, the log as `events` (unless `events: false`). */
function rowRead(db: Db, opts: PartsRead) {
  const only = opts.events ?? true;
  return only === false ? columnsRead(db, opts) : db`${columnsRead(db, opts)}, ${logRead(db, db`transcript.id`, only)} as events`;
}

/**
 * `forUpdate` locks the row: every change of one transcript is serialised, so versions never fork.
 * `topics: false` / `events: false` leave those (long) parts unread: null in the aggregate;
 * `webvtt: false` leaves the WebVTT unread: WEBVTT_NOT_READ in the state (see there).
 */
export async function loadTranscript(db: Db, id: string, opts: PartsRead & { forUpdate?: boolean } = {}): Promise<Aggregate | null> {
  if (!opts.forUpdate) {
    const [row] = await db<Row[]>`select ${rowRead(db, opts)} from transcript where id = ${id}`;
    return row ? toAggregate(row) : null;
  }
  // The log is read once the row is locked, by a statement of its own: a read that waited for the
  // lock gets the row as its last writer left it, but a subquery of that statement would still see
  // the log as it was when the statement began, without that writer's entries.
  const [row] = await db<Row[]>`select ${columnsRead(db, opts)} from transcript where id = ${id} for update`;
  const only = opts.events ?? true;
  if (!row || only === false) return row ? toAggregate(row) : null;
  const [log] = await db<{ events: unknown }[]>`select ${logRead(db, id, only)} as events`;
  return toAggregate({ ...row, events: log!.events });
}

/** A transcript as read for a write without a lock (`saveIfUnchanged`): `rowVersion` is the row's xmin. */
export interface Snapshot {
  aggregate: Aggregate;
  rowVersion: string;
  /**
   * An entry the log was not searched for but taken not to hold (the aggregate's log holds no
   * entry equal to it): the write checks that too, and changes nothing if the log holds one.
   */
  assumedAbsent?: LoggedEvent;
}

/** The transcript unlocked, with its row version (parts as `loadTranscript`'s). */
export async function loadSnapshot(db: Db, id: string, opts: PartsRead = {}): Promise<Snapshot | null> {
  // One statement, one snapshot: the log as of the row version read (every change of the log writes the row).
  const [row] = await db<(Row & { row_version: string })[]>`select ${rowRead(db, opts)}, xmin::text as row_version
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
