// Environment of the transcription service. The pipelines read their own settings (storage, model
// backends, PIPELINE_WORK_DIR) from the same environment; see pipelines/deps.ts.
import { SharedSettings } from "@scribe/kit";
import { z } from "zod";

export const TranscriptionConfig = z.object({
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  AUTH_BACKEND: SharedSettings.AUTH_BACKEND,
});
export type TranscriptionConfig = z.infer<typeof TranscriptionConfig>;
