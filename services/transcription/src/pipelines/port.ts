// The boundary between the pipelines (multitrack workflow, file pipeline) and the transcript write
// side. Pipelines never touch the transcript table: they call this port, which the transcription
// core implements with one transaction per call that writes the aggregate, bumps its version and
// emits the matching events through the outbox (transcript.updated / transcript.topic.upserted /
// transcript.topics.cleared / transcript.completed / transcript.event.appended).
//
// Every call names the run. A call from a run that is no longer the transcript's current run (it
// was cancelled by reprocessing) changes nothing and returns false, so a late step of an old run
// never overwrites the new one. Calls are idempotent: repeating one with the same values (a step
// re-run after its worker died) emits nothing new.
import type { ActionItems, PipelineEventName, RecordingReady, StoredParticipant, TopicRecord, TranscriptState } from "@scribe/contracts";

/** What a run is asked to process; fixed when the run starts (workflow input, JSON). */
export interface PipelineInput {
  transcript_id: string;
  /** multitrack → the multitrack workflow; file → the file pipeline. */
  kind: RecordingReady["kind"];
  /** Storage holding `tracks` / `file` (a platform bucket, or the transcripts bucket for uploads). */
  bucket: string;
  tracks: RecordingReady["tracks"];
  file: RecordingReady["file"];
  /** Everyone recorded as a participant of the meeting: their names go into the summaries. */
  participants: RecordingReady["participants"];
  source_language: string;
  target_language: string;
  meeting_id: string | null;
  room_id: string | null;
  recording_id: string | null;
}

/** Fields a pipeline may set on the transcript (everything else belongs to the API side). */
export type PipelinePatch = Partial<
  Pick<TranscriptState, "title" | "short_summary" | "long_summary" | "participants" | "duration" | "audio_location" | "audio_deleted"> & {
    action_items: ActionItems | null;
  }
>;

export interface TranscriptPort {
  /** The transcript as it is now (null when destroyed). */
  load(transcriptId: string): Promise<TranscriptState | null>;
  /** First step of a run: status `processing`, error cleared; STATUS event. */
  markProcessing(transcriptId: string, runId: string): Promise<boolean>;
  /** Set fields; emits transcript.updated (nothing when every value is unchanged). */
  update(transcriptId: string, runId: string, patch: PipelinePatch): Promise<boolean>;
  /**
   * Replace all topics (in order); the transcript's WebVTT is regenerated from their words.
   * Emits transcript.topics.cleared then one transcript.topic.upserted per topic.
   */
  replaceTopics(transcriptId: string, runId: string, topics: TopicRecord[]): Promise<boolean>;
  /** Append to the realtime event log (transcript.event.appended): TRANSCRIPT, TOPIC, WAVEFORM… */
  appendEvent(transcriptId: string, runId: string, event: PipelineEventName, data: Record<string, unknown>): Promise<boolean>;
  /** Last step: status `ended`, transcript.completed with the run id (webhooks, chat, e-mail). */
  complete(transcriptId: string, runId: string): Promise<boolean>;
  /** The run failed for good: status `error` with the reason, never overwriting `ended`. */
  fail(transcriptId: string, runId: string, reason: string): Promise<boolean>;
}

export type { StoredParticipant };
