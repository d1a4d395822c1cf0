// SQL of the transcription service's write side; nothing else in the service touches the transcript table.
import { RecordingReady, StoredParticipant, TopicRecord, TranscriptState } from "@scribe/contracts";
import type { Db } from "@scribe/kit";
import { z } from "zod";
import type { Aggregate, LoggedEvent } from "./domain/transcript";

const STATE_COLUMNS = [
  "id", "version", "name", "status", "error", "locked", "duration", "created_at", "updated_at", "title", "short_summary",
  "long_summary", "action_items", "participants", "source_language", "target_language", "reviewed", "audio_location",
  "audio_deleted", "user_id", "share_mode", "source_kind", "meeting_id", "recording_id", "room_id", "webvtt", "deleted_at",
] as const;
const COLUMNS = [...STATE_COLUMNS, "topics", "events", "current_run_id", "completed_run_id", "recording_source"] as const;
type Column = (typeof COLUMNS)[number];
type Row = Record<Column, unknown>;

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
const Topics = z.array(TopicRecord);
const Events = z.array(z.object({ event: z.string(), data: z.record(z.string(), z.unknown()) }));

function toAggregate(row: Row): Aggregate {
  const state = TranscriptState.parse({
    ...Object.fromEntries(STATE_COLUMNS.map((c) => [c, row[c]])),
    duration: Number(row.duration),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deleted_at: iso(row.deleted_at),
    participants: z.array(StoredParticipant).parse(row.participants),
  });
  return {
    state,
    topics: Topics.parse(row.topics),
    events: Events.parse(row.events) as LoggedEvent[],
    current_run_id: row.current_run_id as string | null,
    completed_run_id: row.completed_run_id as string | null,
    recording_source: row.recording_source === null ? null : RecordingReady.parse(row.recording_source),
  };
}

function toRow(db: Db, a: Aggregate): Row {
  const s = a.state;
  const json = (v: unknown) => (v === null ? null : db.json(v as Parameters<Db["json"]>[0]));
  return {
    ...s,
    action_items: json(s.action_items),
    participants: json(s.participants),
    topics: json(a.topics),
    events: json(a.events),
    current_run_id: a.current_run_id,
    completed_run_id: a.completed_run_id,
    recording_source: json(a.recording_source),
  };
}

export async function insertTranscript(db: Db, a: Aggregate): Promise<void> {
  await db`insert into transcript ${db(toRow(db, a) as unknown as Record<Column, string | null>, ...COLUMNS)}`;
}

export async function saveTranscript(db: Db, a: Aggregate): Promise<void> {
  const columns = COLUMNS.filter((c) => c !== "id" && c !== "created_at");
  await db`update transcript set ${db(toRow(db, a) as unknown as Record<Column, string | null>, ...columns)} where id = ${a.state.id}`;
}

export async function deleteTranscript(db: Db, id: string): Promise<void> {
  await db`delete from transcript where id = ${id}`;
}

/** `forUpdate` locks the row: every change of one transcript is serialised, so versions never fork. */
export async function loadTranscript(db: Db, id: string, opts: { forUpdate?: boolean } = {}): Promise<Aggregate | null> {
  const rows = opts.forUpdate
    ? await db<Row[]>`select ${db(COLUMNS)} from transcript where id = ${id} for update`
    : await db<Row[]>`select ${db(COLUMNS)} from transcript where id = ${id}`;
  return rows[0] ? toAggregate(rows[0]) : null;
}

/** The transcript made for a platform recording (one per recording). */
export async function transcriptIdOfRecording(db: Db, recordingId: string): Promise<string | null> {
  const rows = await db<{ id: string }[]>`select id from transcript where recording_id = ${recordingId} order by created_at limit 1`;
  return rows[0]?.id ?? null;
}
