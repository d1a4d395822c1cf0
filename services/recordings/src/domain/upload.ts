// Upload rules: file extension from the part's name, which chunks are missing, what a chunk key is,
// and what an accepted upload becomes (a recording of the transcript and its recording.ready).
import { transcriptKeys, type RecordingReady, type TranscriptUpdated } from "@scribe/contracts";
import type { FileRow, RecordingRow } from "./recordings";

/** Text after the last dot of the file name (reference), restricted to a safe key suffix. */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  const ext = dot < 0 ? "" : filename.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : "bin";
}

/**
 * The first `limit` chunk numbers below `total` that are not present. Sized by what was received and
 * the limit, never by `total` (a client chooses it).
 */
export function missingChunks(total: number, present: number[], limit = 20): number[] {
  const have = new Set(present);
  const missing: number[] = [];
  for (let i = 0; i < total && missing.length < limit; i++) if (!have.has(i)) missing.push(i);
  return missing;
}

/** The gateway may only report chunks at the key this service gave it. */
export function isChunkKey(transcriptId: string, chunk: number, key: string): boolean {
  const prefix = transcriptKeys.uploadChunk(transcriptId, chunk, "");
  return key.startsWith(prefix) && /^[a-z0-9]{1,10}$/.test(key.slice(prefix.length));
}

export function extensionOfKey(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}

export interface UploadedFile {
  recordingId: string;
  transcript: TranscriptUpdated;
  bucket: string;
  key: string;
  size: number;
  durationSeconds: number | null;
  now: Date;
}

export function planUploadRecording(u: UploadedFile): { recording: RecordingRow; file: FileRow; ready: RecordingReady } {
  const t = u.transcript;
  const recordedAt = u.now.toISOString();
  const recording: RecordingRow = {
    id: u.recordingId,
    source: "upload",
    kind: "file",
    platform: null,
    bucket: u.bucket,
    object_key: u.key,
    meeting_id: t.meeting_id,
    room_id: t.room_id,
    room_name: null,
    owner_user_id: t.user_id,
    transcript_id: t.id,
    recorded_at: recordedAt,
    duration_seconds: u.durationSeconds,
    participants: [],
  };
  const file: FileRow = {
    recording_id: u.recordingId,
    position: 0,
    role: "upload",
    bucket: u.bucket,
    key: u.key,
    size: u.size,
    start_offset_seconds: null,
    participant_id: null,
    participant_name: null,
    user_id: null,
    delete_requested_at: null,
    deleted_reason: null,
  };
  const ready: RecordingReady = {
    recording_id: u.recordingId,
    kind: "file",
    source: "upload",
    bucket: u.bucket,
    tracks: [],
    file: { key: u.key, size: u.size },
    transcript_id: t.id,
    meeting_id: t.meeting_id,
    room_id: t.room_id,
    room_name: null,
    owner_user_id: t.user_id,
    platform: null,
    recorded_at: recordedAt,
    duration_seconds: u.durationSeconds,
    participants: [],
  };
  return { recording, file, ready };
}
