// Environment of the transcription service: storage (where recordings are read and results
// written), the model backends (speech-to-text, diarization, LLM; @scribe/ai), the pipelines'
// scratch folder, retention on public instances (PUBLIC_DATA_RETENTION_DAYS keeps the reference's name
// and default), and the shared settings. Parsed from the service's own environment, so several
// services in one process (tests, `scribe up`) each get theirs.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AiConfig } from "@scribe/ai";
import { SharedSettings, StorageConfig, envInt } from "@scribe/kit";
import { WorkflowWorkerConfig } from "@scribe/workflow";
import { z } from "zod";
import { parseRunAt } from "./domain/retention";
import { LiveConfig } from "./live/config";
import { LLM_QUEUE, MEDIA_QUEUE, MIXDOWN_QUEUE, STT_QUEUE } from "./pipelines/steps/policy";

/** The queue limits as the workflow worker takes them. */
export function pipelineConcurrency(c: TranscriptionConfig): Record<string, number> {
  return {
    [STT_QUEUE.name]: c.PIPELINE_STT_CONCURRENCY,
    [MIXDOWN_QUEUE.name]: c.PIPELINE_MIXDOWN_CONCURRENCY,
    [MEDIA_QUEUE.name]: c.PIPELINE_MEDIA_CONCURRENCY,
    [LLM_QUEUE.name]: c.PIPELINE_LLM_CONCURRENCY,
  };
}

export const TranscriptionConfig = StorageConfig.extend({
  // The fields only: AiConfig's cross-field checks are applied again in `aiConfigOf`.
  ...AiConfig.shape,
  ...WorkflowWorkerConfig.shape,
  ...LiveConfig.shape,
  PIPELINE_WORK_DIR: z
    .string()
    .default(join(tmpdir(), "scribe-pipelines"))
    .describe("scratch folder of the processing pipelines (audio conversion, model input)"),
  // Cluster-wide: every transcription replica must have the same values (they set one shared limit).
  PIPELINE_STT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .default(STT_QUEUE.concurrency)
    .describe("speech-to-text and diarization steps running at once in the whole cluster"),
  PIPELINE_MIXDOWN_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .default(MIXDOWN_QUEUE.concurrency)
    .describe("multitrack mixdowns running at once in the whole cluster"),
  PIPELINE_MEDIA_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .default(MEDIA_QUEUE.concurrency)
    .describe("other ffmpeg steps (conversion, waveform) running at once in the whole cluster"),
  PIPELINE_LLM_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .default(LLM_QUEUE.concurrency)
    .describe("summariser (LLM) steps running at once in the whole cluster"),
  PUBLIC_DATA_RETENTION_DAYS: envInt(7, 1).describe(
    "PUBLIC_MODE: anonymous transcripts older than this many days are deleted with their meetings, recordings and files",
  ),
  RETENTION_RUN_AT: z
    .string()
    .default("03:00")
    .refine((v) => v === "off" || parseRunAt(v) !== null, "expected HH:MM (UTC) or off")
    .describe("PUBLIC_MODE: time of day (UTC, HH:MM) of the daily retention run; off: not in this process"),
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  AUTH_BACKEND: SharedSettings.AUTH_BACKEND,
});
export type TranscriptionConfig = z.infer<typeof TranscriptionConfig>;
