// The file pipeline (platform B recordings and uploads) on real ffmpeg, pocketsphinx, offline
// diarization, storage and workflow runner; corrupt, silent and missing inputs fail clearly.
import { vocabularyShare } from "@scribe/ai";
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { completedWebvtt, textOfParts, topicsToWebvtt, transcriptKeys, wordsToWebvtt } from "@scribe/contracts";
import { probe, uploadFile } from "@scribe/media";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MeetingFixture } from "@scribe/simulators";
import { HEAVY, pipelineEnv, pipelineInput, type PipelineEnv } from "./support/env";
import { syncMeeting, writeSilence } from "./support/meeting";

const exec = promisify(execFile);
const BUCKET = "whereby-test";

let env: PipelineEnv;
let fx: MeetingFixture;
beforeAll(async () => {
  env = await pipelineEnv("pl-file");
  fx = await syncMeeting();
  await env.workers();
}, HEAVY);
afterAll(async () => env?.close());

async function put(key: string, path: string): Promise<void> {
  await uploadFile(env.bucket(BUCKET), key, path);
}

async function runFile(id: string, key: string) {
  const runId = await env.start(pipelineInput({ transcript_id: id, kind: "file", bucket: BUCKET, file: { key, size: null } }));
  return { runId, run: await env.finished(runId) };
}

describe("file pipeline", () => {
  it(
    "turns one recorded file into an ended transcript: mp3, duration, words, topics, title, summaries, waveform",
    async () => {
      const mp4 = join(env.storageRoot, "meeting.mp4");
      await exec("ffmpeg", ["-v", "error", "-y", "-i", fx.mixPath, "-c:a", "aac", "-b:a", "64k", mp4]);
      await put("room-2026-01-01T10:00:00Z.mp4", mp4);
      const id = "tr-file-1";
      const { run } = await runFile(id, "room-2026-01-01T10:00:00Z.mp4");
      expect(run.status, JSON.stringify(run.steps.filter((s) => s.status !== "succeeded"))).toBe("succeeded");

      const t = env.port.transcripts.get(id)!;
      expect(t.status).toBe("ended");
      expect(env.port.callsOf("complete").filter((c) => c.applied)).toHaveLength(1);
      expect(Math.abs(t.duration - fx.truth.duration * 1000)).toBeLessThan(500);
      expect(t.audio_location).toBe("storage");
      const mp3 = await probe(join(env.storageRoot, "storage", "transcripts", transcriptKeys.mp3(id)));
      expect(mp3.audio?.codec).toBe("mp3");

      const topics = env.port.topics.get(id)!;
      expect(topics.length).toBeGreaterThan(0);
      const words = topics.flatMap((x) => x.words);
      expect(words.length).toBeGreaterThan(fx.truth.words.length * 0.6);
      for (const w of words) expect(Number.isInteger(w.speaker)).toBe(true);
      // transcript.completed v2 carries the WebVTT once: each topic's own WebVTT, rebuilt from parts of the
      // transcript's, is exactly what v1 carried, on what a real pipeline cut into topics.
      const webvtt = topicsToWebvtt(topics);
      const { topicParts } = completedWebvtt(webvtt, topics);
      expect(topicParts.map((parts) => textOfParts(parts, webvtt))).toEqual(topics.map((x) => wordsToWebvtt(x.words)));

      const text = env.port.eventsOf(id, "TRANSCRIPT");
      expect(text).toHaveLength(1);
      expect(text[0]!.text).toBe(words.map((w) => w.text).join(""));
      expect(text[0]!.text).toMatch(/payment/i);

      // Offline summaries are drawn from what was said (speakers named "Speaker N" without participants).
      const said = `${String(text[0]!.text)} speaker 0 1 2 3 discussion of`;
      const drawn = (v: string | null) => [v, vocabularyShare(v ?? "", said)] as const;
      expect(drawn(t.title)[1], `title ${t.title}`).toBeGreaterThanOrEqual(0.6);
      expect(drawn(t.short_summary)[1], `short summary ${t.short_summary}`).toBeGreaterThanOrEqual(0.8);
      expect(drawn(t.long_summary)[1], `long summary ${t.long_summary}`).toBeGreaterThanOrEqual(0.6);
      expect(env.port.eventsOf(id, "FINAL_TITLE")).toEqual([{ title: t.title }]);
      expect(env.port.eventsOf(id, "FINAL_SHORT_SUMMARY")).toEqual([{ short_summary: t.short_summary }]);
      expect(t.action_items).not.toBeNull();

      const [wave] = env.port.eventsOf(id, "WAVEFORM") as { waveform: number[] }[];
      expect(wave!.waveform).toHaveLength(255);
      expect(wave!.waveform.every((v) => Number.isFinite(v) && v >= 0 && v <= 1)).toBe(true);
      expect(env.port.eventsOf(id, "DURATION")).toEqual([{ duration: t.duration }]);
      expect(env.port.events.get(id)!.at(-1)).toEqual({ event: "STATUS", data: { value: "ended" } });
    },
    HEAVY,
  );

  it(
    "fails a corrupt file at once with a reason naming it",
    async () => {
      const path = join(env.storageRoot, "corrupt.mp4");
      await writeFile(path, Buffer.from("this is not a media file at all, just text pretending to be one".repeat(50)));
      await put("corrupt.mp4", path);
      const { runId, run } = await runFile("tr-file-corrupt", "corrupt.mp4");
      expect(run.status).toBe("failed");
      expect(run.steps.find((s) => s.step === "extract")).toMatchObject({ status: "failed", attempts: 1 });
      const t = env.port.transcripts.get("tr-file-corrupt")!;
      expect(t.status).toBe("error");
      expect(t.error).toMatch(/^extract failed after 1 attempt\(s\): MediaError: input is corrupt/);
      expect(env.port.callsOf("fail").map((c) => c.runId)).toContain(runId);
      expect(env.port.callsOf("complete").filter((c) => c.runId === runId)).toHaveLength(0);
    },
    HEAVY,
  );

  it(
    "fails silent audio with a clear reason and serves nothing as done",
    async () => {
      const path = await writeSilence(join(env.storageRoot, "silent.wav"), 20);
      await put("silent.wav", path);
      const id = "tr-file-silent";
      const { run } = await runFile(id, "silent.wav");
      expect(run.status).toBe("failed");
      const t = env.port.transcripts.get(id)!;
      expect(t.status).toBe("error");
      expect(t.error).toMatch(/MediaError: input is silent/);
      expect(env.port.topics.get(id)).toEqual([]);
      expect(t.title).toBeNull();
      expect(await env.bucket("transcripts").head(transcriptKeys.mp3(id))).toBeNull();
    },
    HEAVY,
  );

  it(
    "fails a missing file at once, naming the object",
    async () => {
      const { run } = await runFile("tr-file-missing", "nowhere/missing.mp4");
      expect(run.status).toBe("failed");
      expect(run.steps.find((s) => s.step === "extract")).toMatchObject({ attempts: 1 });
      expect(env.port.transcripts.get("tr-file-missing")!.error).toMatch(/not found: whereby-test\/nowhere\/missing\.mp4/);
    },
    HEAVY,
  );
});
