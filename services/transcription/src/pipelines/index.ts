// The pipelines' entry points for the transcription core:
//   startPipeline(tx, input)        start the run in the caller's transaction (multitrack or file)
//   cancelPipeline(tx, runId, why)  stop a run (reprocessing); its late port calls change nothing
//   forgetPipelineRuns(tx, id, why) remove every run of a destroyed transcript (inputs, outputs)
//   startPipelineWorkers(rt, port)  run the steps in this process
//
// startPipelineWorkers needs, in the service's schema, the workflow tables (shared migrations
// `_workflow`, i.e. WORKFLOW_MIGRATIONS) and the kit outbox relay running (step messages go out
// through the outbox; the service runtime does both). Everything else comes from the environment
// unless given in `deps`: StorageConfig (STORAGE_*/TRANSCRIPT_STORAGE_*: buckets and driver),
// AiConfig (TRANSCRIPT_*/DIARIZATION_*/LLM_*: speech-to-text, diarizer, summariser),
// PIPELINE_WORK_DIR (scratch space, default <tmp>/scribe-pipelines), and consent read from the
// MEETINGS stream. ffmpeg/ffprobe and pocketsphinx must be installed (deploy/ensure-deps.sh).
import type { Bus, Logger, Sql, Tx } from "@scribe/kit";
import { cancelRun, forgetSubject, startRun, WorkflowWorker, type AnyWorkflow, type WorkerOptions } from "@scribe/workflow";
import { planningOnly, type GetContext, type PipelineContext } from "./context";
import type { PipelineDeps } from "./deps";
import { fileWorkflow } from "./file";
import { multitrackWorkflow } from "./multitrack";
import type { PipelineInput, TranscriptPort } from "./port";

export type { PipelineInput, TranscriptPort, PipelinePatch } from "./port";
export type { PipelineDeps } from "./deps";
export { MULTITRACK_WORKFLOW } from "./multitrack";
export { FILE_WORKFLOW } from "./file";
export { PipelineInputSchema } from "./input";

/** Both workflows bound to a context getter. */
export function pipelineWorkflows(get: GetContext) {
  return { multitrack: multitrackWorkflow(get), file: fileWorkflow(get) };
}

let planning: ReturnType<typeof pipelineWorkflows> | null = null;
const plans = () => (planning ??= pipelineWorkflows(planningOnly));

/**
 * Start the run for `input` in the caller's transaction: it exists (and its first step is queued)
 * if and only if the caller commits. A still-running run of the same transcript is cancelled.
 */
export async function startPipeline(tx: Tx, input: PipelineInput): Promise<{ run_id: string }> {
  const opts = { subject: input.transcript_id, supersede: true };
  const { runId } =
    input.kind === "multitrack" ? await startRun(tx, plans().multitrack, input, opts) : await startRun(tx, plans().file, input, opts);
  return { run_id: runId };
}

/** Cancel a run (no-op when it already finished): running steps are aborted, nothing more is queued. */
export async function cancelPipeline(tx: Tx, runId: string, reason: string): Promise<void> {
  await cancelRun(tx, runId, reason);
}

/** Every run of a transcript removed (a running one cancelled first): what they stored goes with it. */
export async function forgetPipelineRuns(tx: Tx, transcriptId: string, reason: string): Promise<void> {
  await forgetSubject(tx, transcriptId, reason);
}

export interface PipelineRuntime {
  sql: Sql;
  bus: Bus;
  log: Logger;
  /** When given (the service runtime), the workers are stopped with the service. */
  onStop?(fn: () => Promise<void>): void;
}

export interface PipelineWorkerOptions extends PipelineDeps {
  /** Passed to the WorkflowWorker (slots per queue, ackWaitMs, stopGraceMs, queues served…). */
  worker?: Partial<Omit<WorkerOptions, "sql" | "bus" | "log" | "workflows">>;
}

export interface PipelineWorkers {
  worker: WorkflowWorker;
  workflows: AnyWorkflow[];
  deps: PipelineDeps;
  stop(): Promise<void>;
}

/** Start a WorkflowWorker running every step of both pipelines, writing through `port`. */
export async function startPipelineWorkers(
  rt: PipelineRuntime,
  port: TranscriptPort,
  opts: PipelineWorkerOptions,
): Promise<PipelineWorkers> {
  const { worker: workerOpts, ...deps } = opts;
  const log = rt.log.child({ component: "pipelines" });
  const ctx: PipelineContext = { port, deps, log };
  const wfs = pipelineWorkflows(() => ctx);
  const workflows = [wfs.multitrack, wfs.file] as unknown as AnyWorkflow[];
  const worker = new WorkflowWorker({ sql: rt.sql, bus: rt.bus, log, workflows, ...workerOpts });
  await worker.start();
  const stop = () => worker.stop();
  rt.onStop?.(stop);
  return { worker, workflows, deps, stop };
}
