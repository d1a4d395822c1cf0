// A pipeline worker in its own process, so a test can SIGKILL it mid-step. It serves only the
// speech-to-text queue, and its speech-to-text never returns: it prints "stt-started" and waits.
// Its port refuses every call (the steps it may run never write; anything else would show).
import { join } from "node:path";
import { ExtractiveSummariser } from "@scribe/ai";
import { connectBus, connectDb, createLogger, LocalStorage } from "@scribe/kit";
import { startPipelineWorkers } from "../../../src/pipelines/index";
import type { TranscriptPort } from "../../../src/pipelines/port";
import { STT_QUEUE } from "../../../src/pipelines/steps/policy";

const env = process.env;
const log = createLogger("child", env.TEST_LOG_LEVEL ?? "silent");
const sql = connectDb(env.DATABASE_URL!, { schema: env.PIPELINE_SCHEMA!, max: 4 });
const bus = await connectBus({ url: env.NATS_URL!, prefix: env.NATS_PREFIX!, name: "pipeline-child" });
const refuse = () => {
  throw new Error("the child worker must not write the transcript");
};
const port: TranscriptPort = {
  load: refuse,
  markProcessing: refuse,
  update: refuse,
  replaceTopics: refuse,
  appendEvent: refuse,
  complete: refuse,
  fail: refuse,
};
await startPipelineWorkers({ sql, bus, log }, port, {
  openBucket: (b) => new LocalStorage(join(env.STORAGE_ROOT!, "storage"), b),
  transcriptsBucket: "transcripts",
  ai: {
    stt: {
      name: "hangs",
      transcribe: () => {
        process.stdout.write("stt-started\n");
        return new Promise(() => {});
      },
    },
    diarizer: null,
    summariser: new ExtractiveSummariser(),
  },
  workDir: join(env.STORAGE_ROOT!, "child-work"),
  consentDenied: async () => false,
  worker: { queues: [STT_QUEUE.name], ackWaitMs: Number(env.ACK_WAIT_MS), workerId: "child" },
});
process.stdout.write("ready\n");
