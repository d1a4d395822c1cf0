// Environment of the transcription service: storage (where recordings are read and results
// written), the model backends (speech-to-text, diarization, LLM; @scribe/ai), the pipelines'
// scratch folder, and the shared settings. Parsed from the service's own environment, so several
// services in one process (tests, `scribe up`) each get theirs.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AiConfig } from "@scribe/ai";
import { SharedSettings, StorageConfig } from "@scribe/kit";
import { z } from "zod";

export const TranscriptionConfig = StorageConfig.extend({
  // The fields only: AiConfig's cross-field checks are applied again in `aiConfigOf`.
  ...AiConfig.shape,
  PIPELINE_WORK_DIR: z.string().default(join(tmpdir(), "scribe-pipelines")).describe("scratch folder of the processing pipelines (audio conversion, model input)"),
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  AUTH_BACKEND: SharedSettings.AUTH_BACKEND,
});
export type TranscriptionConfig = z.infer<typeof TranscriptionConfig>;
