// recording.available: the meetings service learned from a video platform that a recording of a
// meeting is ready in the platform's storage; the recordings service takes it from there.
import { z } from "@hono/zod-openapi";
import { defineEvent } from "../common/event-def";
import { Platform } from "../common/enums";

export const RecordingTrack = z.object({
  /** Object key in `bucket`. */
  key: z.string(),
  kind: z.enum(["audio", "video"]),
  /** Seconds from the recording's start at which this track begins; null = read it from the file. */
  start_offset_seconds: z.number().min(0).nullable(),
  /** The platform's participant id for this track (platform A: one track per participant). */
  participant_id: z.string().nullable(),
  participant_name: z.string().nullable(),
  /** Scribe user id when the participant was signed in. */
  user_id: z.string().nullable(),
  size: z.number().int().min(0).nullable(),
});
export type RecordingTrack = z.infer<typeof RecordingTrack>;

/** Someone recorded as a participant of the meeting (names go into the summaries). */
export const RecordedParticipant = z.object({
  participant_id: z.string().nullable(),
  name: z.string(),
  user_id: z.string().nullable(),
});

export const RecordingAvailable = z.object({
  /** The platform's recording id (platform A) or one Scribe generated (platform B). */
  recording_id: z.string(),
  meeting_id: z.string(),
  room_id: z.string(),
  room_name: z.string(),
  /** Owner of the room: owner of the transcript made from this recording. */
  room_owner_id: z.string(),
  platform: Platform,
  /** multitrack: one audio track per participant (platform A); file: one file (platform B). */
  kind: z.enum(["multitrack", "file", "composed_video"]),
  /**
   * Storage holding the files: the platform's bucket. With the `local` storage driver a bucket is
   * the folder `<STORAGE_LOCAL_ROOT>/<bucket>/`, objects are files at `<bucket>/<key>`.
   */
  bucket: z.string(),
  tracks: z.array(RecordingTrack).default([]),
  /** The single file for kind `file` / `composed_video`. */
  file: z
    .object({ key: z.string(), size: z.number().int().min(0).nullable() })
    .nullable()
    .default(null),
  recorded_at: z.iso.datetime({ offset: true }),
  duration_seconds: z.number().min(0).nullable(),
  /** The room's video option at meeting creation: keep video tracks only when true. */
  store_video: z.boolean(),
  /** Everyone recorded as a participant of the meeting (names go into the summaries). */
  participants: z.array(RecordedParticipant).default([]),
});
export type RecordingAvailable = z.infer<typeof RecordingAvailable>;

export const recordingAvailableEvents = [
  defineEvent({ type: "recording.available", stream: "MEETINGS", version: 1, data: RecordingAvailable, aggregateId: (d) => d.meeting_id }),
] as const;

/**
 * recording.ready: a recording's files are stored and checked; the transcription service makes (or
 * reuses) the transcript and starts processing. Emitted by the recordings service for platform
 * recordings (from recording.available) and for completed uploads (transcript_id set).
 */
export const RecordingReady = z.object({
  recording_id: z.string(),
  /** multitrack → durable multitrack workflow; file → file pipeline. */
  kind: z.enum(["multitrack", "file"]),
  source: z.enum(["platform", "upload"]),
  /** Bucket holding `tracks` / `file` (platform bucket, or the transcripts bucket for uploads). */
  bucket: z.string(),
  /** Audio tracks only (video is never transcribed), in participant order. */
  tracks: z.array(RecordingTrack.omit({ kind: true })).default([]),
  file: z
    .object({ key: z.string(), size: z.number().int().min(0).nullable() })
    .nullable()
    .default(null),
  /** Set for uploads: the existing transcript the file was uploaded to. */
  transcript_id: z.string().nullable().default(null),
  meeting_id: z.string().nullable().default(null),
  room_id: z.string().nullable().default(null),
  room_name: z.string().nullable().default(null),
  /** Owner of a transcript created for this recording (the room owner for platform recordings). */
  owner_user_id: z.string().nullable().default(null),
  platform: Platform.nullable().default(null),
  recorded_at: z.iso.datetime({ offset: true }),
  duration_seconds: z.number().min(0).nullable().default(null),
  participants: z.array(RecordedParticipant).default([]),
});
export type RecordingReady = z.infer<typeof RecordingReady>;

export const recordingEvents = [
  defineEvent({ type: "recording.ready", stream: "RECORDINGS", version: 1, data: RecordingReady, aggregateId: (d) => d.recording_id }),
] as const;
