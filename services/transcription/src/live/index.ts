// Live recording in the transcription service: the record_webrtc operation, the recovery of
// sessions whose process died, and flushing every session when the service stops.
import { transcriptionOps } from "@scribe/contracts";
import { runPeriodically, type ServiceRuntime } from "@scribe/kit";
import type { TranscriptionConfig } from "../config";
import type { PipelineDeps } from "../pipelines/deps";
import type { TranscriptPort } from "../pipelines/port";
import { portRangeOf } from "./config";
import { LiveRecorder } from "./recorder";

export { LiveRecorder, NO_AUDIO } from "./recorder";

export function startLiveRecording(rt: ServiceRuntime<TranscriptionConfig>, port: TranscriptPort, deps: PipelineDeps): LiveRecorder {
  // A wrong range fails the start, not the first browser that connects.
  portRangeOf(rt.config);
  const recorder = new LiveRecorder({
    sql: rt.sql,
    log: rt.log,
    config: rt.config,
    port,
    stt: deps.ai.stt,
    summariser: deps.ai.summariser,
    bucket: deps.openBucket(deps.transcriptsBucket),
    bucketName: deps.transcriptsBucket,
    workDir: deps.workDir,
    clock: rt.clock,
  });
  rt.rpc.handle(transcriptionOps.recordWebrtc, ({ caller, id, offer }) => recorder.start(caller, id, offer));
  const recovery =
    rt.config.LIVE_RECOVERY_INTERVAL_MS > 0
      ? runPeriodically("live-recovery", rt.config.LIVE_RECOVERY_INTERVAL_MS, () => recorder.recoverAbandoned(), rt.log)
      : null;
  rt.onStop(async () => {
    await recovery?.stop();
    await recorder.stopAll();
  });
  return recorder;
}
