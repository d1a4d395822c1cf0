// The transcript's rules of a live recording (behaviour §1.5, §9.16, §10), pure: `recording` while
// the session streams (the session is the transcript's current run, so a reprocess started
// meanwhile makes its late writes stale), `processing` once its audio is handed to the file
// pipeline, `error` when nothing can be made of it.
import type { RecordingReady, TranscriptState } from "@scribe/contracts";
import { RuleError, type Aggregate } from "../../domain/transcript";

/** Why a live recording cannot start, or null. */
export function liveRefusal(a: Aggregate): string | null {
  if (a.state.locked) return "Transcript is locked";
  return null;
}

// Each rule gives the transcript's next state; the decider announces it with the run's other changes
// (the run switch, its topics cleared, the STATUS logged), as for a file run.

/** A fresh live run's state: `recording`, from nothing. */
export function recordingStarted(a: Aggregate): TranscriptState {
  const refusal = liveRefusal(a);
  if (refusal) throw new RuleError("bad_request", refusal);
  return { ...a.state, status: "recording", error: null, duration: 0, source_kind: "live" };
}

/** The stream was flushed: `processing` until the file pipeline has made the transcript of the audio. */
export function recordingFlushed(a: Aggregate, sessionId: string): TranscriptState | null {
  if (a.current_run_id !== sessionId || a.state.deleted_at !== null) return null;
  return { ...a.state, status: "processing", error: null };
}

/** The live audio as the recording the file pipeline processes. */
export function liveRecording(
  a: Aggregate,
  sessionId: string,
  bucket: string,
  file: { key: string; size: number },
  now: Date,
): RecordingReady {
  return {
    recording_id: sessionId,
    kind: "file",
    source: "upload",
    bucket,
    tracks: [],
    file,
    transcript_id: a.state.id,
    meeting_id: a.state.meeting_id,
    room_id: a.state.room_id,
    room_name: null,
    owner_user_id: a.state.user_id,
    platform: null,
    recorded_at: now.toISOString(),
    duration_seconds: null,
    participants: [],
  };
}

/** Nothing usable was recorded: `error` with the reason (null when the session is no longer current). */
export function recordingFailed(a: Aggregate, sessionId: string, reason: string): TranscriptState | null {
  if (a.current_run_id !== sessionId || a.state.status === "ended") return null;
  return { ...a.state, status: "error", error: reason };
}
