// The live session's changes to the transcript, each in the caller's transaction with the row
// locked: the decider's live commands (rules in domain/transitions.ts), committed with their STATUS events.
import type { Logger, Tx } from "@scribe/kit";
import { execute } from "../changes";
import { RuleError, type Aggregate } from "../domain/transcript";
import { cancelPipeline } from "../pipelines/index";
import { startProcessing } from "../processing";
import { loadTranscript } from "../store";
import { liveRecording } from "./domain/transitions";

/** The command's outcome, or null when the session is no longer the transcript's current run. */
async function unlessStale<T>(f: () => Promise<T>): Promise<T | null> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof RuleError && e.late === "stale_run") return null;
    throw e;
  }
}

/** `recording`, with the session as the current run (an unfinished processing run is cancelled). `a` is loaded with its topics. */
export async function beginLiveRun(tx: Tx, a: Aggregate, sessionId: string, now: Date): Promise<Aggregate> {
  if (a.current_run_id) await cancelPipeline(tx, a.current_run_id, "superseded: live recording started");
  return (await execute(tx, a, { type: "startLiveRecording", run_id: sessionId, now }, now)).aggregate!;
}

/**
 * The audio is complete in storage: `processing`, and the file pipeline started on it (waveform,
 * MP3, transcript, diarization, topics, title, summaries, then `ended` and the notifications).
 * False when the session is no longer the transcript's current run (reprocessed, destroyed).
 */
export async function handOverLiveRun(
  tx: Tx,
  transcriptId: string,
  sessionId: string,
  audio: { bucket: string; key: string; size: number },
  log: Logger,
  now: Date,
): Promise<boolean> {
  const a = await loadTranscript(tx, transcriptId, { forUpdate: true, events: false });
  if (!a) return false;
  const recording = liveRecording(a, sessionId, audio.bucket, { key: audio.key, size: audio.size }, now);
  const handed = await unlessStale(() => execute(tx, a, { type: "handOverLiveRecording", run_id: sessionId, recording, now }, now));
  if (!handed) return false;
  await startProcessing(tx, handed.aggregate!, log, `live recording ${sessionId} ended`, now);
  return true;
}

/** `error` with the reason; false when the session is no longer current. */
export async function failLiveRun(tx: Tx, transcriptId: string, sessionId: string, reason: string, now: Date): Promise<boolean> {
  const a = await loadTranscript(tx, transcriptId, { forUpdate: true, topics: false, events: false });
  if (!a) return false;
  return (await unlessStale(() => execute(tx, a, { type: "failLiveRecording", run_id: sessionId, reason, now }, now))) !== null;
}
