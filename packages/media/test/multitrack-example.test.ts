// The shape the multitrack pipeline will take, end to end on the real runner and real ffmpeg:
// per-track alignment (offset + 16 kHz WAV) and "transcription" chained per track, a merge of words in
// time order, a mixdown with the tracks' offsets straight to MP3 (one mixdown at a time), and the
// waveform of the mix. Transcription is faked (no model here): words carry the track's time span.
// MediaError says `retryable: false` for corrupt/missing/silent input, which the runner honours.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transcriptKeys } from "@scribe/contracts";
import { LocalStorage, readSmallObject } from "@scribe/kit";
import { defineQueue, getRun, startRun, workflow, NonRetryableError } from "@scribe/workflow";
import { workflowTestEnv, type WorkflowSchema, type WorkflowTestEnv } from "@scribe/workflow/testing";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { analyzeAudio, downloadObject, mixdown, probe, toSpeechWav, trackStartOffset, uploadFile } from "../src/index";
import { garbage, tone } from "./fixtures";

const MIXDOWN = defineQueue("mixdown", { concurrency: 1 });
const CPU = defineQueue("cpu", { concurrency: 4 });

let env: WorkflowTestEnv;
let s: WorkflowSchema;
let storageRoot: string;
let storage: LocalStorage;

/** A scratch directory for one step attempt, removed whatever happens. */
async function inScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "scribe-step-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const Input = z.object({ transcriptId: z.string(), tracks: z.array(z.object({ key: z.string(), participant: z.string() })).min(1) });

const multitrack = workflow("multitrack_example", Input)
  .forEach("align_track", { items: (input) => input.tracks, queue: CPU }, async (ctx) =>
    inScratch(async (dir) => {
      const local = join(dir, "track.webm");
      await downloadObject(storage, ctx.item.key, local, { signal: ctx.signal });
      const offset = await trackStartOffset(local, { signal: ctx.signal });
      const wav = join(dir, "speech.wav");
      // Not padded: transcribe the track as recorded and shift its word times by the offset.
      const { durationMs } = await toSpeechWav(local, wav, { signal: ctx.signal, onProgress: () => ctx.heartbeat() });
      // Deterministic key (run id + track index): a re-run overwrites, never duplicates.
      const speechKey = transcriptKeys.work(ctx.input.transcriptId, ctx.runId, `speech_${ctx.index}.wav`);
      await uploadFile(storage, speechKey, wav, "audio/wav");
      return { speechKey, trackKey: ctx.item.key, offsetSeconds: offset.seconds, durationMs, speaker: ctx.index! };
    }),
  )
  .forEachOf("transcribe_track", { of: "align_track" }, async (ctx) => [
    {
      text: `words of speaker ${ctx.item.speaker}`,
      start: ctx.item.offsetSeconds,
      end: ctx.item.offsetSeconds + ctx.item.durationMs / 1000,
      speaker: ctx.item.speaker,
    },
  ])
  .step("merge_words", { after: ["transcribe_track"] }, async (ctx) =>
    ctx.parents.transcribe_track.flat().sort((a, b) => a.start - b.start),
  )
  .step("mixdown", { after: ["align_track"], queue: MIXDOWN, timeoutMs: 20 * 60_000 }, async (ctx) =>
    inScratch(async (dir) => {
      const inputs = [];
      for (const t of ctx.parents.align_track) {
        const local = join(dir, `track_${t.speaker}.webm`);
        await downloadObject(storage, t.trackKey, local, { signal: ctx.signal });
        inputs.push({ input: local, offsetSeconds: t.offsetSeconds });
      }
      const mp3 = join(dir, "audio.mp3");
      const { durationMs } = await mixdown(inputs, mp3, {
        format: { kind: "mp3", bitrateKbps: 64 },
        signal: ctx.signal,
        onProgress: () => ctx.heartbeat(),
      });
      await uploadFile(storage, transcriptKeys.mp3(ctx.input.transcriptId), mp3, "audio/mpeg");
      return { durationMs };
    }),
  )
  .step("waveform", { after: ["mixdown"] }, async (ctx) =>
    inScratch(async (dir) => {
      const mp3 = join(dir, "audio.mp3");
      await downloadObject(storage, transcriptKeys.mp3(ctx.input.transcriptId), mp3, { signal: ctx.signal });
      const a = await analyzeAudio(mp3, { signal: ctx.signal });
      if (a.silent) throw new NonRetryableError("the mixed audio is silent");
      const path = join(dir, "audio.json");
      await writeFile(path, JSON.stringify(a.waveform));
      await uploadFile(storage, transcriptKeys.waveform(ctx.input.transcriptId), path, "application/json");
      return { points: a.waveform.length };
    }),
  )
  .step("finalize", { after: ["merge_words", "waveform", "mixdown"] }, async (ctx) => {
    // Working files of this run go once its results exist (transcriptKeys.work).
    const work = transcriptKeys.work(ctx.input.transcriptId, ctx.runId, "");
    const keys: string[] = [];
    for await (const o of storage.list(work)) keys.push(o.key);
    await storage.delete(keys);
    return {
      words: ctx.parents.merge_words.length,
      durationMs: ctx.parents.mixdown.durationMs,
      waveformPoints: ctx.parents.waveform.points,
    };
  })
  .build();

beforeAll(async () => {
  env = await workflowTestEnv("mtexample");
  s = await env.openSchema("transcription");
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-storage-"));
  storage = new LocalStorage(storageRoot, "transcripts");
  await s.worker([multitrack]);
});
afterAll(async () => {
  await env.close();
  await rm(storageRoot, { recursive: true, force: true });
});

const webm = (seconds: number, freq: number, offset: number) =>
  tone({
    seconds,
    freq,
    sampleRate: 48000,
    tsOffset: offset,
    name: `track-${freq}.webm`,
    out: ["-ac", "1", "-c:a", "libopus", "-f", "webm"],
  });

describe("a multitrack-shaped workflow on @scribe/workflow + @scribe/media", () => {
  it("aligns, transcribes per track, merges in time order, mixes to MP3 and makes a NaN-free waveform", async () => {
    const tracks = [
      { file: await webm(3, 300, 4), key: "rec/late.webm", participant: "c" },
      { file: await webm(3, 500, 0), key: "rec/first.webm", participant: "a" },
      { file: await webm(2, 700, 1.5), key: "rec/middle.webm", participant: "b" },
    ];
    for (const t of tracks) await uploadFile(storage, t.key, t.file);
    const { runId } = await startRun(
      s.sql,
      multitrack,
      { transcriptId: "tr-1", tracks: tracks.map(({ key, participant }) => ({ key, participant })) },
      { subject: "tr-1" },
    );
    const run = await eventually(
      async () => {
        const r = await getRun(s.sql, runId);
        if (r?.status === "failed") throw new Error(`run failed: ${r.errorStep}: ${r.error}`);
        return r?.status === "succeeded" ? r : null;
      },
      { timeoutMs: 60_000, message: "multitrack run succeeded" },
    );
    expect(run.steps.filter((x) => x.step === "transcribe_track" && x.index !== null)).toHaveLength(3);

    const [merged] = await s.sql<
      { output: { speaker: number; start: number }[] }[]
    >`select output from workflow_steps where run_id = ${runId} and step = 'merge_words'`;
    expect(merged!.output.map((w) => w.speaker)).toEqual([1, 2, 0]);
    expect(merged!.output[2]!.start).toBeGreaterThan(3.9);

    const mp3 = join(storageRoot, "transcripts", transcriptKeys.mp3("tr-1"));
    const info = await probe(mp3);
    expect(info.audio?.codec).toBe("mp3");
    // Ends with the latest track: offset 4 s + 3 s.
    expect(info.duration).toBeGreaterThan(6.8);
    expect(info.duration).toBeLessThan(7.3);
    const peaks = JSON.parse((await readSmallObject(storage, transcriptKeys.waveform("tr-1"))).toString()) as number[];
    expect(peaks).toHaveLength(255);
    expect(peaks.every((v) => Number.isFinite(v) && v >= 0 && v <= 1)).toBe(true);
    const left: string[] = [];
    for await (const o of storage.list("tr-1/work/")) left.push(o.key);
    expect(left).toEqual([]);
  });

  it("fails at once with a clear error when a track is corrupt", async () => {
    await uploadFile(storage, "rec/broken.webm", await garbage());
    await uploadFile(storage, "rec/ok.webm", await webm(2, 500, 0));
    const { runId } = await startRun(s.sql, multitrack, {
      transcriptId: "tr-2",
      tracks: [
        { key: "rec/ok.webm", participant: "a" },
        { key: "rec/broken.webm", participant: "b" },
      ],
    });
    const run = await eventually(
      async () => {
        const r = await getRun(s.sql, runId);
        return r?.status === "failed" ? r : null;
      },
      { timeoutMs: 60_000 },
    );
    expect(run.errorStep).toBe("align_track[1]");
    expect(run.error).toMatch(/^MediaError: input is corrupt or not a supported audio\/video file: /);
    expect(run.steps.find((x) => x.step === "align_track" && x.index === 1)?.attempts).toBe(1);
  });
});
