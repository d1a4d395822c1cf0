// Request/reply operations of the transcription service (the transcript write side): api.md
// §2.9–2.13 mutations. Answers carry the transcript `version` they produced, so the gateway can
// wait for the read model to hold it before answering (read-your-writes).
import { z } from "@hono/zod-openapi";
import { defineOp, withCaller } from "../common/rpc";
import { TranscriptState } from "./events";
import { RtcOffer } from "./live";
import {
  CreateParticipant,
  CreateTranscript,
  GetTranscriptWithParticipants,
  Participant,
  SpeakerAssignment,
  SpeakerMerge,
  UpdateParticipant,
  UpdateTranscript,
} from "./api";

const byId = { id: z.string() };
const version = { version: z.number().int().min(1) };
export const StatusWithVersion = z.object({ status: z.string(), ...version });
export const ParticipantWithVersion = z.object({ participant: Participant, ...version });
export const ProcessStarted = z.object({ status: z.string(), run_id: z.string(), ...version });

/** One step of a processing run (a fan-out item has its index): Scribe's extension for operators. */
export const TranscriptRunStep = z
  .object({
    step: z.string(),
    index: z.number().int().nullable(),
    status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
    attempts: z.number().int(),
    max_attempts: z.number().int(),
    last_error: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().nullable(),
  })
  .openapi("TranscriptRunStep");
export const TranscriptRun = z
  .object({
    id: z.string(),
    workflow: z.string(),
    status: z.enum(["running", "succeeded", "failed", "cancelled"]),
    error: z.string().nullable(),
    error_step: z.string().nullable(),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    duration_ms: z.number().nullable(),
    steps: z.array(TranscriptRunStep),
  })
  .openapi("TranscriptRun");
/** The transcript's processing runs, newest first (at most the last 20). */
export const TranscriptRuns = z.object({ runs: z.array(TranscriptRun) }).openapi("TranscriptRuns");
export type TranscriptRuns = z.infer<typeof TranscriptRuns>;

export const transcriptionOps = {
  /** POST /v1/transcripts (the gateway checks the pub level first). */
  create: defineOp("transcription.create", withCaller({ transcript: CreateTranscript }), TranscriptState),
  /** READ then OWNER. */
  update: defineOp("transcription.update", withCaller({ ...byId, patch: UpdateTranscript }), TranscriptState),
  /** Soft delete; 404 / OWNER; idempotent. */
  delete: defineOp("transcription.delete", withCaller(byId), StatusWithVersion),
  restore: defineOp("transcription.restore", withCaller(byId), StatusWithVersion),
  destroy: defineOp("transcription.destroy", withCaller(byId), StatusWithVersion),
  /** READ; cancels a running run, starts a fresh one. */
  process: defineOp("transcription.process", withCaller(byId), ProcessStarted),
  /** READ, not locked: a WebRTC peer connection recording live (the answer to the browser's offer). */
  recordWebrtc: defineOp("transcription.record_webrtc", withCaller({ ...byId, offer: RtcOffer }), RtcOffer),
  /** READ; the runs of the pipelines for this transcript with their steps (status, attempts, timings, errors). */
  runs: defineOp("transcription.runs", withCaller(byId), TranscriptRuns),
  /** READ then EDIT. */
  addParticipant: defineOp(
    "transcription.participant_add",
    withCaller({ ...byId, participant: CreateParticipant }),
    ParticipantWithVersion,
  ),
  updateParticipant: defineOp(
    "transcription.participant_update",
    withCaller({ ...byId, participant_id: z.string(), patch: UpdateParticipant }),
    ParticipantWithVersion,
  ),
  deleteParticipant: defineOp("transcription.participant_delete", withCaller({ ...byId, participant_id: z.string() }), StatusWithVersion),
  assignSpeaker: defineOp("transcription.speaker_assign", withCaller({ ...byId, assignment: SpeakerAssignment }), StatusWithVersion),
  mergeSpeakers: defineOp("transcription.speaker_merge", withCaller({ ...byId, merge: SpeakerMerge }), StatusWithVersion),
} as const;

/**
 * The API view of a write-side state, for answers given before the read model caught up: no
 * e-mail enrichment, no room name, no change_seq (api.md §2.10 PATCH says as much of the reference).
 */
export function transcriptWithParticipantsOf(s: TranscriptState): z.infer<typeof GetTranscriptWithParticipants> {
  return {
    id: s.id,
    user_id: s.user_id,
    name: s.name,
    status: s.status,
    locked: s.locked,
    duration: s.duration,
    title: s.title,
    short_summary: s.short_summary,
    long_summary: s.long_summary,
    created_at: s.created_at,
    share_mode: s.share_mode,
    source_language: s.source_language,
    target_language: s.target_language,
    reviewed: s.reviewed,
    meeting_id: s.meeting_id,
    source_kind: s.source_kind,
    room_id: s.room_id,
    room_name: null,
    audio_deleted: s.audio_deleted,
    change_seq: null,
    has_cloud_video: false,
    cloud_video_duration: null,
    participants: s.participants.map((p) => ({ ...p, email: null })),
  };
}
