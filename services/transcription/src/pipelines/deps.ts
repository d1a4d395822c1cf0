// What the pipeline steps need besides the port: storage, the model backends, a scratch folder and
// the consent question. `defaultPipelineDeps` builds them all from the environment (the same
// variables the rest of the system reads), so `startPipelineWorkers(rt, port)` is self-contained.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackends, loadAiConfig, type AiBackends } from "@scribe/ai";
import { loadConfig, openStorage, StorageConfig, type Bus, type Env, type Logger, type ObjectStorage } from "@scribe/kit";
import { consentFromMeetingEvents } from "./steps/consent";

export interface PipelineDeps {
  /** Open a bucket by name (inputs come from the run's bucket, outputs go to `transcriptsBucket`). */
  openBucket(bucket: string): ObjectStorage;
  /** The bucket the read side serves `<id>/audio.mp3` and `<id>/audio.json` from. */
  transcriptsBucket: string;
  ai: Pick<AiBackends, "stt" | "diarizer" | "summariser">;
  /** Local scratch space; every step works in its own sub-folder and removes it. */
  workDir: string;
  /**
   * Does any consent record of the meeting deny consent (§6.1)? null = nothing readable (the
   * check is then skipped and logged).
   */
  consentDenied(meetingId: string, signal?: AbortSignal): Promise<boolean | null>;
}

/** Everything from the environment: StorageConfig, AiConfig, the MEETINGS stream for consent. */
export function defaultPipelineDeps(bus: Bus, log: Logger, env: Env = process.env): PipelineDeps {
  const storage = loadConfig(StorageConfig, env);
  const buckets = new Map<string, ObjectStorage>();
  return {
    openBucket(bucket) {
      let b = buckets.get(bucket);
      if (!b) buckets.set(bucket, (b = openStorage(storage, bucket)));
      return b;
    },
    transcriptsBucket: storage.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME,
    ai: createBackends(loadAiConfig(env), log),
    workDir: env.PIPELINE_WORK_DIR ?? join(tmpdir(), "scribe-pipelines"),
    consentDenied: consentFromMeetingEvents(bus),
  };
}
