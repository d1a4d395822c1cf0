// Recordings area: what the recordings service answers about stored media (locations in object
// storage, zip manifests, deletions). Bytes never travel over the bus: replies name a bucket and key
// and the gateway streams the object itself.
import { z } from "@hono/zod-openapi";
import type { Caller } from "../common/schemas";
import { ActionItems } from "../transcripts/events";
import { StoredParticipant } from "../transcripts/api";

/** The caller other services and the operator CLI send to internal-only operations. */
export const INTERNAL_CALLER: Caller = { userId: null, email: null, via: "internal" };

/** An object in storage; `bucket` is a bucket name (a sub-folder with the local driver). */
export const ObjectLocation = z.object({ bucket: z.string(), key: z.string() });
export type ObjectLocation = z.infer<typeof ObjectLocation>;

/**
 * What `recordings.delete_media` removes:
 * - `tracks`: the recording's source audio (platform A per-participant tracks, platform B's file);
 * - `mixdown`: the transcript's processed audio (`<transcript_id>/audio.mp3`);
 * - `video`: video tracks and the meeting's composed video;
 * - `upload`: an uploaded file and any chunks left of it.
 */
export const MediaPart = z.enum(["tracks", "mixdown", "video", "upload"]);
export type MediaPart = z.infer<typeof MediaPart>;
export const ALL_MEDIA_PARTS: MediaPart[] = ["tracks", "mixdown", "video", "upload"];

export const DeletionReason = z.enum(["consent", "retention", "destroy", "operator"]);
export type DeletionReason = z.infer<typeof DeletionReason>;

export const DeleteMediaResult = z.object({
  /** Recordings whose files were considered. */
  recording_ids: z.array(z.string()),
  /** Every object deleted by this call or an earlier one (deleting is idempotent). */
  deleted: z.array(ObjectLocation.extend({ part: MediaPart })),
});
export type DeleteMediaResult = z.infer<typeof DeleteMediaResult>;

export const AudioLocation = ObjectLocation.extend({
  /** Content-Disposition file name: `recording_<first uuid group>.mp3`. */
  filename: z.string(),
});

export const UploadSlot = ObjectLocation.extend({
  /** Bytes this chunk may have before the upload passes UPLOAD_MAX_BYTES. */
  max_bytes: z.number().int().min(0),
});

export const UploadChunkStored = z.object({
  /** `done`: the last chunk was assembled, checked and handed to processing. */
  status: z.enum(["chunk_stored", "done"]),
  recording_id: z.string().nullable(),
});

/** metadata.json of the zip export, without its topics (fetched one by one: each fits a bus message). */
export const ZipMetadata = z.object({
  id: z.string(),
  title: z.string().nullable(),
  created_at: z.string(),
  /** Milliseconds, like every transcript duration on the wire. */
  duration: z.number(),
  source_language: z.string(),
  target_language: z.string(),
  short_summary: z.string().nullable(),
  long_summary: z.string().nullable(),
  participants: z.array(StoredParticipant),
  action_items: ActionItems.nullable(),
  webvtt: z.string().nullable(),
  recording_id: z.string().nullable(),
  meeting_id: z.string().nullable(),
});
export type ZipMetadata = z.infer<typeof ZipMetadata>;

export const ZipManifest = z.object({
  filename: z.string(),
  /** Media files in archive order; a file missing from storage is skipped by the writer. */
  entries: z.array(ObjectLocation.extend({ name: z.string() })),
  metadata: ZipMetadata,
  topic_count: z.number().int().min(0),
});
export type ZipManifest = z.infer<typeof ZipManifest>;

/** A recording as the recordings service stores it (operators and tests read it). */
export const RecordingFileView = ObjectLocation.extend({
  role: z.enum(["audio_track", "video_track", "file", "upload", "composed_video"]),
  size: z.number().int().nullable(),
  deleted_at: z.string().nullable(),
  deleted_reason: z.string().nullable(),
});
export const RecordingView = z.object({
  id: z.string(),
  source: z.enum(["platform", "upload"]),
  kind: z.enum(["multitrack", "file", "composed_video"]),
  platform: z.string().nullable(),
  meeting_id: z.string().nullable(),
  transcript_id: z.string().nullable(),
  recorded_at: z.string(),
  files: z.array(RecordingFileView),
});
export type RecordingView = z.infer<typeof RecordingView>;
