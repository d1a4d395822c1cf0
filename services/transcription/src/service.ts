// The transcription service: the transcript write side (API mutations, recording.ready → a
// transcript and a pipeline run, retention) and the pipeline workers, which
// write through DbTranscriptPort. Its schema holds the transcript table and the workflow tables.
import { defineService } from "@scribe/kit";
import { serveRunOps, workerSettings, WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { registerCommands } from "./commands";
import { TranscriptionConfig, pipelineConcurrency } from "./config";
import { registerConsumers } from "./consumers";
import { expireTranscripts, startRetentionSchedule } from "./retention";
import { registerShredder } from "./shred";
import { startLiveRecording } from "./live/index";
import { pipelineDeps } from "./pipeline-deps";
import { startPipelineWorkers } from "./pipelines/index";
import { DbTranscriptPort } from "./port";
import { registerRunQueries } from "./runs";

export const transcriptionService = defineService({
  name: "transcription",
  config: TranscriptionConfig,
  sharedMigrations: [WORKFLOW_MIGRATIONS],
  async start(rt) {
    registerCommands(rt.rpc, rt.sql, rt.log, rt.clock);
    registerRunQueries(rt.rpc, rt.sql);
    serveRunOps(rt.rpc, rt.sql, "transcription");
    registerConsumers(rt);
    registerShredder(rt);
    const port = new DbTranscriptPort(rt.sql, rt.log, rt.clock);
    const deps = pipelineDeps(rt.config, rt.bus, rt.log);
    await startPipelineWorkers(rt, port, {
      ...deps,
      worker: { concurrency: pipelineConcurrency(rt.config), ...workerSettings(rt.config) },
    });
    // Registered after the workers: stop hooks run in reverse, so live sessions hand over first.
    const live = startLiveRecording(rt, port, deps);
    const retention = startRetentionSchedule(rt.sql, rt.config, rt.log.child({ job: "transcription.retention" }), rt.clock);
    rt.onStop(() => retention.stop());
    // Tests (and an operator's one-off run) drive retention with their own clock.
    return { live, expireTranscripts: (opts: { now?: Date } = {}) => expireTranscripts(rt.sql, rt.config, opts.now ?? rt.clock()) };
  },
});
