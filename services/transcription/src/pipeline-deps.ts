// The pipelines' dependencies built from this service's parsed configuration (not process.env:
// in a process running several services, each has its own environment).
import { AiConfig, createBackends } from "@scribe/ai";
import { openStorage, type Bus, type Logger, type ObjectStorage } from "@scribe/kit";
import type { TranscriptionConfig } from "./config";
import type { PipelineDeps } from "./pipelines/index";
import { consentFromMeetingEvents } from "./pipelines/steps/consent";

export function pipelineDeps(config: TranscriptionConfig, bus: Bus, log: Logger): PipelineDeps {
  // AiConfig's cross-field checks (a URL for remote backends) on the values already parsed.
  const ai = AiConfig.parse(Object.fromEntries(Object.keys(AiConfig.shape).map((k) => [k, config[k as keyof TranscriptionConfig]])));
  const buckets = new Map<string, ObjectStorage>();
  return {
    openBucket(bucket) {
      let b = buckets.get(bucket);
      if (!b) buckets.set(bucket, (b = openStorage(config, bucket)));
      return b;
    },
    transcriptsBucket: config.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME,
    ai: createBackends(ai, log),
    workDir: config.PIPELINE_WORK_DIR,
    consentDenied: consentFromMeetingEvents(bus),
  };
}
