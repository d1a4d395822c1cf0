// Entities as events carry them, for tests and benches that publish events without running their
// owner (a transcript without the transcription service, a room without the rooms service).
import { randomUUID } from "node:crypto";
import type { RoomState } from "./rooms/api";
import type { TranscriptState } from "./transcripts/events";

/** A transcript as TRANSCRIPTS events carry it: an ended file-less room transcript unless `overrides` say otherwise. */
export function sampleTranscriptState(overrides: Partial<TranscriptState> = {}): TranscriptState {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    version: 1,
    name: "Transcript",
    status: "ended",
    error: null,
    locked: false,
    duration: 60_000,
    created_at: now,
    updated_at: now,
    title: null,
    short_summary: null,
    long_summary: null,
    action_items: null,
    participants: [],
    source_language: "en",
    target_language: "en",
    reviewed: false,
    audio_location: "storage",
    audio_deleted: null,
    user_id: null,
    share_mode: "private",
    source_kind: "room",
    meeting_id: null,
    recording_id: null,
    room_id: null,
    webvtt: null,
    deleted_at: null,
    ...overrides,
  };
}

/** A room as ROOMS events carry it (for tests that do not run the rooms service). */
export function sampleRoomState(overrides: Partial<RoomState> = {}): RoomState {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    name: `room-${randomUUID().slice(0, 8)}`,
    user_id: "owner",
    created_at: now,
    updated_at: now,
    version: 1,
    zulip_auto_post: false,
    zulip_stream: "",
    zulip_topic: "",
    is_locked: false,
    room_mode: "normal",
    recording_type: "cloud",
    recording_trigger: "automatic-2nd-participant",
    is_shared: false,
    ics_url: null,
    ics_fetch_interval: 300,
    ics_enabled: false,
    ics_last_sync: null,
    ics_last_etag: null,
    platform: "daily",
    skip_consent: false,
    email_transcript_to: null,
    store_video: false,
    webhook_url: null,
    webhook_secret: null,
    ...overrides,
  };
}
