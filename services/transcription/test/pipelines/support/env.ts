// Set-up for the pipeline tests: a database schema with the workflow tables, a bus prefix, local
// storage in a temporary folder, the offline model backends, and the in-memory port; the real
// startPipeline / startPipelineWorkers entry points run the workflows.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackends, loadAiConfig } from "@scribe/ai";
import { createLogger, LocalStorage, type ObjectStorage } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { getRun, type RunDetail } from "@scribe/workflow";
import { workflowTestEnv, type WorkflowSchema, type WorkflowTestEnv } from "@scribe/workflow/testing";
import {
  startPipeline,
  startPipelineWorkers,
  type PipelineDeps,
  type PipelineInput,
  type PipelineWorkerOptions,
  type PipelineWorkers,
} from "../../../src/pipelines/index";
import { blankTranscript, MemoryPort } from "./memory-port";

export const log = createLogger("pipelines-test", process.env.TEST_LOG_LEVEL ?? "silent");

/** Guard for tests running ffmpeg and pocketsphinx on a shared 2-core machine: hangs only, not speed. */
export const HEAVY = 300_000;

export interface PipelineEnv {
  file: WorkflowTestEnv;
  schema: WorkflowSchema;
  port: MemoryPort;
  deps: PipelineDeps;
  storageRoot: string;
  /** Answers of the consent check, by meeting id (missing: no denial). */
  consent: Map<string, boolean | null>;
  bucket(name: string): ObjectStorage;
  workers(opts?: Partial<PipelineWorkerOptions>): Promise<PipelineWorkers>;
  /** Register the transcript in the port, start the run; the port knows the run before its first step. */
  start(input: PipelineInput): Promise<string>;
  /** Wait until the run is no longer running. */
  finished(runId: string, timeoutMs?: number): Promise<RunDetail>;
  close(): Promise<void>;
}

export async function pipelineEnv(label: string): Promise<PipelineEnv> {
  const file = await workflowTestEnv(label);
  const schema = await file.openSchema("pipelines");
  const storageRoot = await mkdtemp(join(tmpdir(), "scribe-pipelines-test-"));
  const port = new MemoryPort();
  const consent = new Map<string, boolean | null>();
  const bucket = (name: string) => new LocalStorage(join(storageRoot, "storage"), name);
  const deps: PipelineDeps = {
    openBucket: bucket,
    transcriptsBucket: "transcripts",
    // Defaults only (no environment): pocketsphinx, the offline diarizer, the extractive summariser.
    ai: createBackends(loadAiConfig({}), log),
    workDir: join(storageRoot, "work"),
    consentDenied: async (meetingId) => (consent.has(meetingId) ? consent.get(meetingId)! : false),
  };
  const started: PipelineWorkers[] = [];
  return {
    file,
    schema,
    port,
    deps,
    storageRoot,
    consent,
    bucket,
    async workers(opts = {}) {
      const w = await startPipelineWorkers({ sql: schema.sql, bus: file.bus, log }, port, {
        ...deps,
        ...opts,
        worker: { stopGraceMs: 50, ...opts.worker },
      });
      started.push(w);
      return w;
    },
    async start(input) {
      if (!port.transcripts.has(input.transcript_id)) {
        port.add(
          blankTranscript(input.transcript_id, { meeting_id: input.meeting_id, room_id: input.room_id, recording_id: input.recording_id }),
        );
      }
      return schema.sql.begin(async (tx) => {
        const { run_id } = await startPipeline(tx, input);
        port.currentRun.set(input.transcript_id, run_id);
        return run_id;
      });
    },
    async finished(runId, timeoutMs = HEAVY - 20_000) {
      return eventually(
        async () => {
          const run = await getRun(schema.sql, runId);
          return run && run.status !== "running" ? run : null;
        },
        { timeoutMs, intervalMs: 200, message: `run ${runId} finished` },
      );
    },
    async close() {
      for (const w of started) await w.stop();
      await file.close();
      await rm(storageRoot, { recursive: true, force: true });
    },
  };
}

/** A PipelineInput with the defaults filled in. */
export function pipelineInput(over: Partial<PipelineInput> & Pick<PipelineInput, "transcript_id" | "kind" | "bucket">): PipelineInput {
  return {
    tracks: [],
    file: null,
    participants: [],
    source_language: "en",
    target_language: "en",
    meeting_id: null,
    room_id: null,
    recording_id: null,
    ...over,
  };
}
