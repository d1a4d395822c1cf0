// Request/reply operations of the recordings service. Media reads answer where the bytes are (after
// deciding access); deletions are for the transcription pipeline, retention and operators.
import { z } from "@hono/zod-openapi";
import {
  AudioLocation,
  DeleteMediaResult,
  DeletionReason,
  MediaPart,
  ObjectLocation,
  RecordingView,
  UploadChunkStored,
  UploadSlot,
  ZipManifest,
} from "./api";
import { defineOp, withCaller } from "../common/rpc";
import { TopicRecord } from "../transcripts/events";
import { VideoUrlResponse } from "../transcripts/api";

const transcript = { transcript_id: z.string() };

export const recordingsOps = {
  /** READ, plus: anonymous callers get only anonymous transcripts (401 "Authentication required"). */
  audio: defineOp("recordings.audio", withCaller(transcript), AudioLocation),
  waveform: defineOp("recordings.waveform", withCaller(transcript), ObjectLocation),
  /** Presigned (15 min) URL of the meeting's composed video. */
  videoUrl: defineOp("recordings.video_url", withCaller(transcript), VideoUrlResponse),
  /** Where the composed video is, for drivers that cannot presign (local): the gateway streams it. */
  videoFile: defineOp("recordings.video_file", withCaller(transcript), ObjectLocation),
  /** READ then OWNER. */
  zip: defineOp("recordings.zip", withCaller(transcript), ZipManifest),
  zipTopic: defineOp("recordings.zip_topic", withCaller({ ...transcript, position: z.number().int().min(0) }), TopicRecord),
  /** May the caller upload this chunk, and where does it go. */
  uploadBegin: defineOp(
    "recordings.upload_begin",
    withCaller({ ...transcript, chunk_number: z.number().int().min(0), total_chunks: z.number().int().min(1), filename: z.string() }),
    UploadSlot,
  ),
  /** The gateway stored a chunk; the last one is assembled, probed and becomes a recording. */
  uploadChunkStored: defineOp(
    "recordings.upload_chunk_stored",
    withCaller({
      ...transcript,
      chunk_number: z.number().int().min(0),
      total_chunks: z.number().int().min(1),
      key: z.string(),
      size: z.number().int().min(0),
    }),
    UploadChunkStored,
  ),
  /** Internal callers only. Idempotent: deletes every stored file of the named parts and marks them gone. */
  deleteMedia: defineOp(
    "recordings.delete_media",
    withCaller({
      recording_id: z.string().nullable().default(null),
      ...transcript,
      parts: z.array(MediaPart).min(1),
      reason: DeletionReason,
    }),
    DeleteMediaResult,
  ),
  /** Internal callers only: delete a recording's stored video (tracks and composed video), keep audio. */
  deleteVideo: defineOp("recordings.delete_video", withCaller({ recording_id: z.string() }), DeleteMediaResult),
  /** Internal callers only. */
  get: defineOp("recordings.get", withCaller({ recording_id: z.string() }), RecordingView),
} as const;
