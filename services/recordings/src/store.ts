// SQL of the recordings service; nothing else in the service touches the database.
import { TopicRecord, TranscriptUpdated, type RecordingView, type TranscriptState } from "@scribe/contracts";
import { defineEntityCopy, type Db, type Tx } from "@scribe/kit";
import type { KnownTranscript } from "./domain/access";
import type { FileRole, FileRow, RecordingRow } from "./domain/recordings";

const iso = (v: Date | string | null): string | null => (v instanceof Date ? v.toISOString() : v);

// ---- recordings and files

const RECORDING_COLUMNS = [
  "id",
  "source",
  "kind",
  "platform",
  "bucket",
  "object_key",
  "meeting_id",
  "room_id",
  "room_name",
  "owner_user_id",
  "transcript_id",
  "recorded_at",
  "duration_seconds",
  "participants",
] as const;
const FILE_COLUMNS = [
  "recording_id",
  "position",
  "role",
  "bucket",
  "key",
  "size",
  "start_offset_seconds",
  "participant_id",
  "participant_name",
  "user_id",
  "delete_requested_at",
  "deleted_reason",
] as const;

/** Inserts the recording and its files; false when a recording with this id already exists. */
export async function insertRecording(db: Db, recording: RecordingRow, files: FileRow[]): Promise<boolean> {
  const row = { ...recording, participants: db.json(recording.participants as never) };
  const inserted = await db`insert into recording ${db(row, ...RECORDING_COLUMNS)}
    on conflict (id) do nothing returning id`;
  if (inserted.length === 0) return false;
  if (files.length) await db`insert into recording_file ${db(files, ...FILE_COLUMNS)}`;
  return true;
}

type RecordingDbRow = Pick<
  RecordingRow,
  "id" | "source" | "kind" | "platform" | "bucket" | "meeting_id" | "transcript_id" | "duration_seconds"
> & {
  recorded_at: Date;
};

export type StoredFile = Pick<FileRow, "recording_id" | "position" | "role" | "bucket" | "key" | "size" | "deleted_reason"> & {
  deleted_at: Date | null;
};

export async function recordingView(db: Db, id: string): Promise<RecordingView | null> {
  const [r] = await db<RecordingDbRow[]>`select id, source, kind, platform, bucket, meeting_id, transcript_id, recorded_at, duration_seconds
    from recording where id = ${id}`;
  if (!r) return null;
  const files = await db<StoredFile[]>`select recording_id, position, role, bucket, key, size::float8 as size, deleted_at, deleted_reason
    from recording_file where recording_id = ${id} order by position`;
  return {
    id: r.id,
    source: r.source,
    kind: r.kind,
    platform: r.platform,
    meeting_id: r.meeting_id,
    transcript_id: r.transcript_id,
    recorded_at: iso(r.recorded_at)!,
    files: files.map((f) => ({
      bucket: f.bucket,
      key: f.key,
      role: f.role,
      size: f.size,
      deleted_at: iso(f.deleted_at),
      deleted_reason: f.deleted_reason,
    })),
  };
}

export async function recordingExists(db: Db, id: string): Promise<{ kind: string; meeting_id: string | null } | null> {
  const [r] = await db<{ kind: string; meeting_id: string | null }[]>`select kind, meeting_id from recording where id = ${id}`;
  return r ?? null;
}

/** Recordings of a transcript: those linked to it and the one its state names. */
export async function recordingIdsOfTranscript(db: Db, transcriptId: string): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    select id from recording where transcript_id = ${transcriptId}
    union
    select r.id from recording r join transcript t on t.recording_id = r.id where t.id = ${transcriptId}`;
  return rows.map((r) => r.id);
}

export async function composedVideoRecordingIds(db: Db, meetingIds: string[]): Promise<string[]> {
  if (meetingIds.length === 0) return [];
  const rows = await db<{ id: string }[]>`select id from recording
    where kind = 'composed_video' and meeting_id = any(${meetingIds}::text[])`;
  return rows.map((r) => r.id);
}

export async function meetingIdsOf(db: Db, recordingIds: string[]): Promise<string[]> {
  if (recordingIds.length === 0) return [];
  const rows = await db<{ meeting_id: string }[]>`select distinct meeting_id from recording
    where id = any(${recordingIds}::text[]) and meeting_id is not null`;
  return rows.map((r) => r.meeting_id);
}

/** The meeting's composed video still stored: the first one recorded wins (set-if-missing). */
export async function composedVideoOf(
  db: Db,
  meetingId: string,
): Promise<{ bucket: string; key: string; duration_seconds: number | null } | null> {
  const [r] = await db<{ bucket: string; key: string; duration_seconds: number | null }[]>`
    select f.bucket, f.key, r.duration_seconds from recording r
    join recording_file f on f.recording_id = r.id
    where r.kind = 'composed_video' and r.meeting_id = ${meetingId} and f.role = 'composed_video'
      and f.delete_requested_at is null and f.deleted_at is null
    order by r.created_at, r.id limit 1`;
  return r ?? null;
}

/** Files of the given recordings and roles (tracks for the zip, targets of a deletion). */
export async function filesOf(db: Db, recordingIds: string[], roles: FileRole[]): Promise<StoredFile[]> {
  if (recordingIds.length === 0 || roles.length === 0) return [];
  return db<StoredFile[]>`select recording_id, position, role, bucket, key, size::float8 as size, deleted_at, deleted_reason
    from recording_file where recording_id = any(${recordingIds}::text[]) and role = any(${roles}::text[])
    order by recording_id, position`;
}

export async function requestFileDeletion(db: Db, recordingIds: string[], roles: FileRole[], reason: string): Promise<void> {
  if (recordingIds.length === 0 || roles.length === 0) return;
  await db`update recording_file set delete_requested_at = now(), deleted_reason = ${reason}
    where recording_id = any(${recordingIds}::text[]) and role = any(${roles}::text[])
      and delete_requested_at is null and deleted_at is null`;
}

/**
 * Requested deletions not yet carried out, locked for this transaction. `wait` (operations that
 * must answer with the outcome) waits for a job holding them; the job itself skips locked rows.
 */
export async function lockPendingDeletions(db: Db, opts: { recordingIds?: string[]; limit: number; wait: boolean }): Promise<StoredFile[]> {
  const scope = opts.recordingIds ? db`and recording_id = any(${opts.recordingIds}::text[])` : db``;
  const lock = opts.wait ? db`for update` : db`for update skip locked`;
  return db<StoredFile[]>`select recording_id, position, role, bucket, key, size::float8 as size, deleted_at, deleted_reason
    from recording_file where delete_requested_at is not null and deleted_at is null ${scope}
    order by delete_requested_at, recording_id, position limit ${opts.limit} ${lock}`;
}

export async function markDeleted(db: Db, files: Pick<StoredFile, "recording_id" | "position">[]): Promise<void> {
  if (files.length === 0) return;
  await db`update recording_file f set deleted_at = now()
    from unnest(${files.map((f) => f.recording_id)}::text[], ${files.map((f) => f.position)}::int[]) as d (recording_id, position)
    where f.recording_id = d.recording_id and f.position = d.position`;
}

/**
 * Both link paths take this lock first: without it, the recording's insert and the transcript's
 * copy can commit concurrently, each missing the other (neither statement sees the other's row).
 */
async function lockRecordingLink(db: Db, recordingId: string): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtext(${`scribe:recording-link:${recordingId}`}))`;
}

/**
 * The two streams are consumed independently, so a transcript naming this recording may have been
 * copied before the recording itself: link it now (linkRecordingToTranscript covers the other order).
 */
export async function linkKnownTranscript(db: Db, recordingId: string): Promise<void> {
  await lockRecordingLink(db, recordingId);
  await db`update recording set transcript_id = t.id
    from (select id from transcript where recording_id = ${recordingId} and destroyed_at is null order by id limit 1) t
    where recording.id = ${recordingId} and recording.transcript_id is null`;
}

export async function linkRecordingToTranscript(db: Db, recordingId: string, transcriptId: string): Promise<void> {
  await lockRecordingLink(db, recordingId);
  await db`update recording set transcript_id = ${transcriptId} where id = ${recordingId} and transcript_id is null`;
}

/** An upload of this transcript whose file is still stored: a second upload is refused. */
export async function hasStoredUpload(db: Db, transcriptId: string): Promise<boolean> {
  const rows = await db`select 1 from recording r join recording_file f on f.recording_id = r.id
    where r.transcript_id = ${transcriptId} and r.source = 'upload' and f.role = 'upload' and f.deleted_at is null limit 1`;
  return rows.length > 0;
}

// ---- transcripts (copy of the TRANSCRIPTS stream)

interface TranscriptCopyRow {
  id: string;
  version: number;
  /** Its `webvtt` may be absent (transcript.updated leaves an unchanged one out): the zip renders it from the topics. */
  state: TranscriptUpdated;
  recording_id: string | null;
  meeting_id: string | null;
  deleted: boolean;
  destroyed_at: Date | null;
}

/** The transcripts' states; a destroyed transcript stays destroyed (destroyed_at is final). */
export const transcriptCopy = defineEntityCopy<TranscriptCopyRow, TranscriptUpdated, never>({
  kind: "transcript",
  table: "transcript",
  columns: ["id", "version", "state", "recording_id", "meeting_id", "deleted"],
  jsonColumns: ["state"],
  lookups: ["id"],
  finalAt: "destroyed_at",
  rowOf: (state, deleted) => ({
    id: state.id,
    version: state.version,
    state,
    recording_id: state.recording_id,
    meeting_id: state.meeting_id,
    deleted,
  }),
});

/** The transcript's copy ends as destroyed, and its topics go with it. */
export async function markTranscriptDestroyed(tx: Tx, state: TranscriptState, now: Date): Promise<void> {
  await transcriptCopy.apply(tx, state, true, now);
  await tx`delete from transcript_topic where transcript_id = ${state.id}`;
}

export async function upsertTopic(db: Db, transcriptId: string, position: number, version: number, topic: TopicRecord): Promise<void> {
  await db`insert into transcript_topic (transcript_id, position, version, topic)
    values (${transcriptId}, ${position}, ${version}, ${db.json(topic as never)})
    on conflict (transcript_id, position) do update set version = excluded.version, topic = excluded.topic
    where transcript_topic.version <= excluded.version`;
}

export async function clearTopics(db: Db, transcriptId: string, version: number): Promise<void> {
  await db`delete from transcript_topic where transcript_id = ${transcriptId} and version < ${version}`;
}

export async function transcriptById(db: Db, id: string): Promise<KnownTranscript | null> {
  const [r] = await db<{ state: unknown; destroyed_at: Date | null }[]>`select state, destroyed_at from transcript where id = ${id}`;
  return r ? { state: TranscriptUpdated.parse(r.state), destroyed: r.destroyed_at !== null } : null;
}

/** The topic at a 0-based index of the stored order. */
/** The transcript's topics in order. */
export async function topicsOf(db: Db, transcriptId: string): Promise<TopicRecord[]> {
  const rows = await db<{ topic: unknown }[]>`select topic from transcript_topic where transcript_id = ${transcriptId} order by position`;
  return rows.map((r) => TopicRecord.parse(r.topic));
}

export async function topicAt(db: Db, transcriptId: string, index: number): Promise<TopicRecord | null> {
  const [r] = await db<{ topic: unknown }[]>`select topic from transcript_topic where transcript_id = ${transcriptId}
    order by position offset ${index} limit 1`;
  return r ? TopicRecord.parse(r.topic) : null;
}

export async function recordMixdownDeleted(db: Db, transcriptId: string, bucket: string, key: string, reason: string): Promise<void> {
  await db`insert into deleted_mixdown (transcript_id, bucket, key, reason) values (${transcriptId}, ${bucket}, ${key}, ${reason})
    on conflict (transcript_id) do nothing`;
}

export async function mixdownDeleted(db: Db, transcriptId: string): Promise<boolean> {
  return (await db`select 1 from deleted_mixdown where transcript_id = ${transcriptId}`).length > 0;
}

// ---- upload chunks

export async function upsertChunk(
  db: Db,
  c: { transcript_id: string; chunk_number: number; bucket: string; key: string; size: number },
): Promise<void> {
  await db`insert into upload_chunk (transcript_id, chunk_number, bucket, key, size)
    values (${c.transcript_id}, ${c.chunk_number}, ${c.bucket}, ${c.key}, ${c.size})
    on conflict (transcript_id, chunk_number) do update set bucket = excluded.bucket, key = excluded.key,
      size = excluded.size, stored_at = now()`;
}

export async function chunksOf(
  db: Db,
  transcriptId: string,
): Promise<{ chunk_number: number; bucket: string; key: string; size: number }[]> {
  return db`select chunk_number, bucket, key, size::float8 as size from upload_chunk
    where transcript_id = ${transcriptId} order by chunk_number`;
}

export async function deleteChunks(db: Db, transcriptId: string): Promise<void> {
  await db`delete from upload_chunk where transcript_id = ${transcriptId}`;
}

/**
 * One assembly (or removal) of a transcript's upload at a time, across transactions: the work on
 * storage and ffprobe runs between the claim and its release, outside any transaction. A claim from
 * before `staleBefore` belongs to a process that died and is taken over.
 */
export async function claimUpload(db: Db, transcriptId: string, now: Date, staleBefore: Date): Promise<boolean> {
  const rows = await db`insert into upload_assembly (transcript_id, claimed_at) values (${transcriptId}, ${now})
    on conflict (transcript_id) do update set claimed_at = excluded.claimed_at
    where upload_assembly.claimed_at < ${staleBefore}
    returning 1`;
  return rows.length > 0;
}

export async function releaseUpload(db: Db, transcriptId: string): Promise<void> {
  await db`delete from upload_assembly where transcript_id = ${transcriptId}`;
}

/** Transcripts whose upload got no chunk since `before` (abandoned), oldest first. */
export async function abandonedUploads(db: Db, before: Date, limit: number): Promise<string[]> {
  const rows = await db<{ transcript_id: string }[]>`select transcript_id from upload_chunk
    group by transcript_id having max(stored_at) < ${before} order by max(stored_at) limit ${limit}`;
  return rows.map((r) => r.transcript_id);
}
