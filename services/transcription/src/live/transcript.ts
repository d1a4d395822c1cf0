// The live session's changes to the transcript, each in the caller's transaction with the row
// locked: the pure rules of domain/transitions.ts, stored with their STATUS events.
import { emit, type Logger, type Tx } from "@scribe/kit";
import { appended, persist } from "../changes";
import type { Aggregate } from "../domain/transcript";
import { cancelPipeline } from "../pipelines/index";
import { startProcessing } from "../processing";
import { loadTranscript } from "../store";
import { liveRecording, recordingFailed, recordingFlushed, recordingStarted } from "./domain/transitions";

async function store(tx: Tx, before: Aggregate, next: Aggregate, runId: string): Promise<Aggregate> {
  const { aggregate } = await persist(tx, before, next);
  if (next.state.status !== before.state.status) {
    await emit(tx, appended(aggregate.state, runId, "STATUS", { value: next.state.status }));
  }
  return aggregate;
}

/** `recording`, with the session as the current run (an unfinished processing run is cancelled). */
export async function beginLiveRun(tx: Tx, a: Aggregate, sessionId: string): Promise<Aggregate> {
  const next = recordingStarted(a, sessionId);
  if (a.current_run_id) await cancelPipeline(tx, a.current_run_id, "superseded: live recording started");
  return store(tx, a, next, sessionId);
}

/**
 * The audio is complete in storage: `processing`, and the file pipeline started on it (waveform,
 * MP3, transcript, diarization, topics, title, summaries, then `ended` and the notifications).
 * False when the session is no longer the transcript's current run (reprocessed, destroyed).
 */
export async function handOverLiveRun(tx: Tx, transcriptId: string, sessionId: string, audio: { bucket: string; key: string; size: number }, log: Logger): Promise<boolean> {
  const a = await loadTranscript(tx, transcriptId, { forUpdate: true });
  const flushed = a && recordingFlushed(a, sessionId);
  if (!a || !flushed) return false;
  const recording = liveRecording(a, sessionId, audio.bucket, { key: audio.key, size: audio.size }, new Date());
  const stored = await store(tx, a, { ...flushed, recording_source: recording }, sessionId);
  await startProcessing(tx, stored, log, `live recording ${sessionId} ended`);
  return true;
}

/** `error` with the reason; false when the session is no longer current. */
export async function failLiveRun(tx: Tx, transcriptId: string, sessionId: string, reason: string): Promise<boolean> {
  const a = await loadTranscript(tx, transcriptId, { forUpdate: true });
  const next = a && recordingFailed(a, sessionId, reason);
  if (!a || !next) return false;
  await store(tx, a, next, sessionId);
  return true;
}
