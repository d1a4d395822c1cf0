// A worker killed (SIGKILL) in the middle of a pipeline step: the step is taken over by another
// worker once its message's ack wait expires, and the run completes exactly once.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { uploadFile } from "@scribe/media";
import { TEST_NATS_URL } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUEUE } from "@scribe/workflow";
import { LLM_QUEUE, MEDIA_QUEUE, MIXDOWN_QUEUE, STT_QUEUE } from "../../src/pipelines/steps/policy";
import { HEAVY, pipelineEnv, pipelineInput, type PipelineEnv } from "./support/env";
import { syncMeeting } from "./support/meeting";

const ACK_WAIT_MS = 1500;
let env: PipelineEnv;
beforeAll(async () => {
  env = await pipelineEnv("pl-kill");
}, HEAVY);
afterAll(async () => env?.close());

function waitForLine(lines: ReturnType<typeof createInterface>, want: string, exited: Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    lines.on("line", (l) => l === want && resolve());
    void exited.then((code) => reject(new Error(`child worker exited before "${want}" (${String(code)})`)));
  });
}

describe("a pipeline worker killed mid-step", () => {
  it(
    "has its step re-run by another worker; the transcript completes once",
    async () => {
      const fx = await syncMeeting();
      await uploadFile(env.bucket("uploads-kill"), "meeting.wav", fx.mixPath);
      // This process serves every queue but speech-to-text, which only the child serves at first.
      const others = [DEFAULT_QUEUE, MIXDOWN_QUEUE, MEDIA_QUEUE, LLM_QUEUE].map((q) => q.name);
      await env.workers({ worker: { queues: others, ackWaitMs: ACK_WAIT_MS } });

      const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./support/child-worker.ts", import.meta.url))], {
        env: {
          ...process.env,
          DATABASE_URL: env.file.db.url,
          PIPELINE_SCHEMA: env.schema.schema,
          NATS_URL: TEST_NATS_URL,
          NATS_PREFIX: env.file.prefix,
          STORAGE_ROOT: env.storageRoot,
          ACK_WAIT_MS: String(ACK_WAIT_MS),
        },
        stdio: ["ignore", "pipe", "inherit"],
      });
      const exited = new Promise((r) => child.once("exit", r));
      try {
        const lines = createInterface({ input: child.stdout! });
        const sttStarted = waitForLine(lines, "stt-started", exited);
        await waitForLine(lines, "ready", exited);
        const id = "tr-killed";
        const runId = await env.start(
          pipelineInput({ transcript_id: id, kind: "file", bucket: "uploads-kill", file: { key: "meeting.wav", size: null } }),
        );
        await sttStarted;
        child.kill("SIGKILL");
        await exited;

        await env.workers({ worker: { queues: [STT_QUEUE.name], ackWaitMs: ACK_WAIT_MS } });
        const run = await env.finished(runId);
        expect(run.status, JSON.stringify(run.steps.filter((s) => s.status !== "succeeded"))).toBe("succeeded");
        expect(run.steps.find((s) => s.step === "transcribe")).toMatchObject({ status: "succeeded", attempts: 2 });
        for (const s of run.steps.filter((x) => x.step !== "transcribe")) expect(s.attempts, s.step).toBe(1);
        const t = env.port.transcripts.get(id)!;
        expect(t.status).toBe("ended");
        expect(env.port.callsOf("complete", id).filter((c) => c.applied)).toHaveLength(1);
        expect(env.port.events.get(id)!.filter((e) => e.event === "STATUS" && e.data.value === "ended")).toHaveLength(1);
        expect(env.port.eventsOf(id, "TRANSCRIPT")).toHaveLength(1);
        expect(env.port.topics.get(id)!.length).toBeGreaterThan(0);
      } finally {
        child.kill("SIGKILL");
        await exited;
      }
    },
    HEAVY,
  );
});
