// What a platform recording becomes: the recording row, one row per stored file (video marked for
// deletion when the room's video option is off) and the recording.ready event for transcription.
import type { RecordingAvailable, RecordingReady } from "@scribe/contracts";

export type FileRole = "audio_track" | "video_track" | "file" | "upload" | "composed_video";

export interface RecordingRow {
  id: string;
  source: "platform" | "upload";
  kind: "multitrack" | "file" | "composed_video";
  platform: string | null;
  bucket: string;
  object_key: string | null;
  meeting_id: string | null;
  room_id: string | null;
  room_name: string | null;
  owner_user_id: string | null;
  transcript_id: string | null;
  recorded_at: string;
  duration_seconds: number | null;
  participants: RecordingAvailable["participants"];
}

export interface FileRow {
  recording_id: string;
  position: number;
  role: FileRole;
  bucket: string;
  key: string;
  size: number | null;
  start_offset_seconds: number | null;
  participant_id: string | null;
  participant_name: string | null;
  user_id: string | null;
  /** Set when the file must go as soon as it is known (video of a room without the video option). */
  delete_requested_at: Date | null;
  deleted_reason: string | null;
}

export interface PlatformRecordingPlan {
  recording: RecordingRow;
  files: FileRow[];
  /** null: nothing to transcribe (composed video, or a multitrack recording without audio). */
  ready: RecordingReady | null;
}

/** The folder of a key (`a/b/c.webm` → `a/b`), as the reference stores for multitrack recordings. */
function folderOf(key: string): string {
  const i = key.lastIndexOf("/");
  return i < 0 ? "" : key.slice(0, i);
}

export function planPlatformRecording(ev: RecordingAvailable, now: Date): PlatformRecordingPlan {
  const dropVideo = ev.store_video ? null : now;
  const videoReason = ev.store_video ? null : "store_video_off";
  const base = {
    recording_id: ev.recording_id,
    bucket: ev.bucket,
    start_offset_seconds: null,
    participant_id: null,
    participant_name: null,
    user_id: null,
  };
  let files: FileRow[];
  let objectKey: string | null;
  if (ev.kind === "multitrack") {
    files = ev.tracks.map((t, position) => ({
      ...base,
      position,
      role: t.kind === "audio" ? "audio_track" : "video_track",
      key: t.key,
      size: t.size,
      start_offset_seconds: t.start_offset_seconds,
      participant_id: t.participant_id,
      participant_name: t.participant_name,
      user_id: t.user_id,
      delete_requested_at: t.kind === "video" ? dropVideo : null,
      deleted_reason: t.kind === "video" ? videoReason : null,
    }));
    objectKey = ev.tracks[0] ? folderOf(ev.tracks[0].key) : null;
  } else {
    const isVideo = ev.kind === "composed_video";
    files = ev.file
      ? [
          {
            ...base,
            position: 0,
            role: isVideo ? "composed_video" : "file",
            key: ev.file.key,
            size: ev.file.size,
            delete_requested_at: isVideo ? dropVideo : null,
            deleted_reason: isVideo ? videoReason : null,
          },
        ]
      : [];
    objectKey = ev.file?.key ?? null;
  }

  const recording: RecordingRow = {
    id: ev.recording_id,
    source: "platform",
    kind: ev.kind,
    platform: ev.platform,
    bucket: ev.bucket,
    object_key: objectKey,
    meeting_id: ev.meeting_id,
    room_id: ev.room_id,
    room_name: ev.room_name,
    owner_user_id: ev.room_owner_id,
    transcript_id: null,
    recorded_at: ev.recorded_at,
    duration_seconds: ev.duration_seconds,
    participants: ev.participants,
  };

  const audio = ev.tracks.filter((t) => t.kind === "audio");
  const transcribable = ev.kind === "file" ? ev.file !== null : ev.kind === "multitrack" && audio.length > 0;
  const ready: RecordingReady | null = transcribable
    ? {
        recording_id: ev.recording_id,
        kind: ev.kind === "multitrack" ? "multitrack" : "file",
        source: "platform",
        bucket: ev.bucket,
        tracks: ev.kind === "multitrack" ? audio.map(({ kind: _kind, ...t }) => t) : [],
        file: ev.kind === "file" ? ev.file : null,
        transcript_id: null,
        meeting_id: ev.meeting_id,
        room_id: ev.room_id,
        room_name: ev.room_name,
        owner_user_id: ev.room_owner_id,
        platform: ev.platform,
        recorded_at: ev.recorded_at,
        duration_seconds: ev.duration_seconds,
        participants: ev.participants,
      }
    : null;
  return { recording, files, ready };
}
