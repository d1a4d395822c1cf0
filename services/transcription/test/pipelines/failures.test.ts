// Retries, give-up, cancellation and reprocessing of a pipeline run, with the real runner, storage
// and ffmpeg; speech-to-text and the summariser are the real offline backends behind a switch
// that makes them fail (as an unreachable model server would) or block until the run is stopped.
import { uploadFile } from "@scribe/media";
import type { SpeechToText, Summariser } from "@scribe/ai";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelPipeline } from "../../src/pipelines/index";
import type { MeetingFixture } from "@scribe/simulators";
import { HEAVY, pipelineEnv, pipelineInput, type PipelineEnv } from "./support/env";
import { syncMeeting } from "./support/meeting";

const BUCKET = "uploads-test";

let env: PipelineEnv;
let fx: MeetingFixture;
let stt: "real" | "down" | "flaky" | "block" = "real";
let sttCalls = 0;
let dropActionItems = false;

beforeAll(async () => {
  env = await pipelineEnv("pl-failures");
  fx = await syncMeeting();
  await uploadFile(env.bucket(BUCKET), "meeting.wav", fx.mixPath);
  const real = env.deps.ai.stt;
  const switched: SpeechToText = {
    name: "switched",
    async transcribe(audio, opts) {
      sttCalls++;
      if (stt === "down" || (stt === "flaky" && sttCalls === 1)) throw new Error("speech server unavailable (503)");
      if (stt === "block") {
        await new Promise((resolve) => opts.signal?.addEventListener("abort", resolve, { once: true }));
        throw opts.signal?.reason ?? new Error("aborted");
      }
      return real.transcribe(audio, opts);
    },
  };
  const summariser = env.deps.ai.summariser;
  const withoutActionItems: Summariser = {
    name: "switched",
    topic: (w, c) => summariser.topic(w, c),
    title: (t, c) => summariser.title(t, c),
    // What a summariser does when its action-item call fails (§7.7): the rest, and null for them.
    summary: async (input) => ({ ...(await summariser.summary(input)), ...(dropActionItems ? { actionItems: null } : {}) }),
  };
  await env.workers({ ai: { ...env.deps.ai, stt: switched, summariser: withoutActionItems } });
}, HEAVY);
afterAll(async () => env?.close());

const fileRun = (id: string) =>
  pipelineInput({ transcript_id: id, kind: "file", bucket: BUCKET, file: { key: "meeting.wav", size: null } });

describe("pipeline failures", () => {
  it(
    "retries a transient step failure and completes",
    async () => {
      stt = "flaky";
      sttCalls = 0;
      const runId = await env.start(fileRun("tr-flaky"));
      const run = await env.finished(runId);
      expect(run.status).toBe("succeeded");
      expect(run.steps.find((s) => s.step === "transcribe")).toMatchObject({ status: "succeeded", attempts: 2 });
      expect(env.port.transcripts.get("tr-flaky")!.status).toBe("ended");
    },
    HEAVY,
  );

  it(
    "fails the transcript with the step's reason once the step has used its retries",
    async () => {
      stt = "down";
      sttCalls = 0;
      const runId = await env.start(fileRun("tr-down"));
      const run = await env.finished(runId);
      expect(run.status).toBe("failed");
      expect(run.steps.find((s) => s.step === "transcribe")).toMatchObject({ status: "failed", attempts: 4 });
      expect(sttCalls).toBe(4);
      const t = env.port.transcripts.get("tr-down")!;
      expect(t.status).toBe("error");
      expect(t.error).toBe("transcribe failed after 4 attempt(s): speech server unavailable (503)");
      expect(env.port.callsOf("complete").filter((c) => c.runId === runId)).toHaveLength(0);
      expect(env.port.topics.get("tr-down")).toEqual([]);
    },
    HEAVY,
  );

  it(
    "leaves action items null when their generation fails, and still completes",
    async () => {
      stt = "real";
      dropActionItems = true;
      try {
        const runId = await env.start(fileRun("tr-no-actions"));
        expect((await env.finished(runId)).status).toBe("succeeded");
      } finally {
        dropActionItems = false;
      }
      const t = env.port.transcripts.get("tr-no-actions")!;
      expect(t.status).toBe("ended");
      expect(t.action_items).toBeNull();
      // The rest of the run still happened: the summary is there and was announced.
      expect(t.short_summary?.length).toBeGreaterThan(20);
      expect(env.port.eventsOf("tr-no-actions", "FINAL_SHORT_SUMMARY")).toEqual([{ short_summary: t.short_summary }]);
      expect(env.port.eventsOf("tr-no-actions", "ACTION_ITEMS")).toEqual([]);
    },
    HEAVY,
  );

  it(
    "cancelling a run stops it without failing or completing the transcript",
    async () => {
      stt = "block";
      sttCalls = 0;
      const runId = await env.start(fileRun("tr-cancel"));
      await eventually(() => sttCalls > 0, { timeoutMs: 60_000, message: "transcription started" });
      await env.schema.sql.begin((tx) => cancelPipeline(tx, runId, "reprocessing"));
      const run = await env.finished(runId);
      expect(run.status).toBe("cancelled");
      const t = env.port.transcripts.get("tr-cancel")!;
      expect(t.status).toBe("processing");
      expect(env.port.callsOf("fail").filter((c) => c.runId === runId)).toHaveLength(0);
      expect(env.port.callsOf("complete").filter((c) => c.runId === runId)).toHaveLength(0);
    },
    HEAVY,
  );

  it(
    "reprocessing supersedes the running run: only the new run completes the transcript",
    async () => {
      stt = "block";
      sttCalls = 0;
      const first = await env.start(fileRun("tr-again"));
      await eventually(() => sttCalls > 0, { timeoutMs: 60_000, message: "first run transcribing" });
      stt = "real";
      const second = await env.start(fileRun("tr-again"));
      expect((await env.finished(first)).status).toBe("cancelled");
      expect((await env.finished(second)).status).toBe("succeeded");
      expect(env.port.transcripts.get("tr-again")!.status).toBe("ended");
      expect(
        env.port
          .callsOf("complete", "tr-again")
          .filter((c) => c.applied)
          .map((c) => c.runId),
      ).toEqual([second]);
      expect(env.port.calls.filter((c) => c.runId === first && c.applied && c.method !== "load").map((c) => c.method)).not.toContain(
        "complete",
      );
    },
    HEAVY,
  );
});
