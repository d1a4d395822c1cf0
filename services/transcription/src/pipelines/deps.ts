// What the pipeline steps need besides the port: storage, the model backends, a scratch folder and
// the consent question. The service builds them from its parsed configuration (pipeline-deps.ts);
// tests and the bench give their own.
import type { AiBackends } from "@scribe/ai";
import type { ObjectStorage } from "@scribe/kit";

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
