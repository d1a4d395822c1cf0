// Starting a run of the pipelines for a transcript, in the caller's transaction: the previous run
// (if any) is cancelled, the decider resets what a fresh run resets (§5.6), and the new run becomes
// the only one allowed to write (current_run_id). Used by recording.ready and by POST /process.
import type { Logger, Tx } from "@scribe/kit";
import { execute } from "./changes";
import type { Aggregate } from "./domain/transcript";
import { cancelPipeline, startPipeline } from "./pipelines/index";
import type { PipelineInput } from "./pipelines/port";

/** The run's input: the recording that made the transcript processable, in the transcript's languages. */
export function pipelineInput(a: Aggregate): PipelineInput {
  const r = a.recording_source;
  if (!r) throw new Error(`transcript ${a.state.id} has no recording to process`);
  return {
    transcript_id: a.state.id,
    kind: r.kind,
    bucket: r.bucket,
    tracks: r.tracks,
    file: r.file,
    participants: r.participants,
    source_language: a.state.source_language,
    target_language: a.state.target_language,
    meeting_id: a.state.meeting_id,
    room_id: a.state.room_id,
    recording_id: a.state.recording_id,
  };
}

/** `a` must be loaded with its topics (a fresh run clears them). */
export async function startProcessing(
  tx: Tx,
  a: Aggregate,
  log: Logger,
  why: string,
  now: Date,
): Promise<{ aggregate: Aggregate; runId: string }> {
  if (a.current_run_id) await cancelPipeline(tx, a.current_run_id, `superseded: ${why}`);
  const input = pipelineInput(a);
  const { run_id } = await startPipeline(tx, input);
  const { aggregate } = await execute(tx, a, { type: "startRun", run_id, now }, now);
  log.info({ transcriptId: a.state.id, runId: run_id, previousRunId: a.current_run_id, kind: input.kind, why }, "processing started");
  return { aggregate: aggregate!, runId: run_id };
}
