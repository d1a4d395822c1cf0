import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MediaError, analyzeAudio, encodeMp3, mixdown, padTrack, probe, toSpeechWav, transcode, waveform } from "../src/index";
import { garbage, speech, tone } from "./fixtures";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scribe-media-"));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));
const out = (name: string) => join(dir, name);

describe("conversion for speech-to-text", () => {
  it("writes 16 kHz mono PCM WAV of the same length", async () => {
    const src = await tone({ seconds: 2, sampleRate: 44100, name: "tone44.wav" });
    const info = await toSpeechWav(src, out("speech.wav"));
    expect(info.durationMs).toBeCloseTo(2000, -1);
    const p = await probe(out("speech.wav"));
    expect(p.audio).toMatchObject({ codec: "pcm_s16le", sampleRate: 16000, channels: 1 });
    expect(p.duration).toBeCloseTo(2, 2);
  });

  it("leaves no file behind when the input is corrupt", async () => {
    const err = await toSpeechWav(await garbage(), out("bad.wav")).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "corrupt", retryable: false });
    expect((await readdir(dir)).filter((f) => f.startsWith("bad.wav"))).toEqual([]);
  });
});

describe("padding a track by its start offset", () => {
  it("adds the offset as leading silence", async () => {
    const info = await padTrack(await tone({ seconds: 2, volume: 0.8 }), out("padded.wav"), 2);
    expect(info.durationMs).toBeCloseTo(4000, -1);
    const peaks = await waveform(out("padded.wav"), { segments: 8 });
    expect(peaks.slice(0, 3)).toEqual([0, 0, 0]);
    for (const v of peaks.slice(5)) expect(v).toBeGreaterThan(0.9);
  });

  it("refuses a negative or absurd offset", async () => {
    const src = await tone({ seconds: 1 });
    await expect(padTrack(src, out("neg.wav"), -1)).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(padTrack(src, out("huge.wav"), 20_000)).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("can write Opus/WebM like the reference's padding service", async () => {
    await transcode(await tone({ seconds: 1 }), out("padded.webm"), { format: { kind: "opus" }, offsetSeconds: 0.5 });
    const p = await probe(out("padded.webm"));
    expect(p.audio).toMatchObject({ codec: "opus", sampleRate: 48000 });
  });
});

describe("mixdown", () => {
  it("lasts until the end of the latest track and places each track at its offset", async () => {
    const a = await tone({ seconds: 2, freq: 300, volume: 0.6, name: "a.wav" });
    const b = await tone({ seconds: 2, freq: 500, volume: 0.6, name: "b.wav" });
    const c = await tone({ seconds: 1, freq: 700, volume: 0.6, name: "c.wav" });
    const info = await mixdown(
      [
        { input: a, offsetSeconds: 0 },
        { input: b, offsetSeconds: 4 },
        { input: c, offsetSeconds: 7 },
      ],
      out("mix.wav"),
      { format: { kind: "wav" } },
    );
    expect(info.durationMs).toBeCloseTo(8000, -1);
    const p = await probe(out("mix.wav"));
    expect(p.duration).toBeCloseTo(8, 1);
    // 8 s in 8 segments: a in 0-2, gap 2-4, b in 4-6, gap 6-7, c in 7-8.
    // (The analysis resampler rings for a few ms around a tone's hard edges: "silent" is < 0.05.)
    const peaks = await waveform(out("mix.wav"), { segments: 8 });
    expect(peaks[0]).toBeGreaterThan(0.9);
    expect(peaks[2]).toBeLessThan(0.05);
    expect(peaks[3]).toBeLessThan(0.05);
    expect(peaks[4]).toBeGreaterThan(0.9);
    expect(peaks[6]).toBeLessThan(0.05);
    expect(peaks[7]).toBeGreaterThan(0.9);
  });

  it("does not normalise: a track alone in the mix keeps its level, overlapping tracks add up", async () => {
    const a = await tone({ seconds: 2, freq: 300, volume: 0.3, name: "quiet-a.wav" });
    const b = await tone({ seconds: 2, freq: 300, volume: 0.3, name: "quiet-b.wav" });
    const single = await analyzeAudio(a);
    await mixdown(
      [
        { input: a, offsetSeconds: 0 },
        { input: b, offsetSeconds: 0 },
        { input: a, offsetSeconds: 3 },
      ],
      out("sum.wav"),
      { format: { kind: "wav" } },
    );
    const mix = await analyzeAudio(out("sum.wav"), { segments: 5 });
    // Two identical in-phase tones sum to twice the level; amix normalize=1 would have divided by 3.
    expect(mix.peak).toBeGreaterThan(single.peak * 1.8);
    // The lone copy at 3-5 s keeps the single track's level: half of the overlap's peak.
    expect(mix.waveform[4]).toBeGreaterThan(0.4);
    expect(mix.waveform[4]).toBeLessThan(0.6);
  });

  it("names the corrupt input", async () => {
    const err = await mixdown(
      [
        { input: await tone({ seconds: 1 }), offsetSeconds: 0 },
        { input: await garbage(), offsetSeconds: 1 },
      ],
      out("x.wav"),
      { format: { kind: "wav", sampleRate: 16000 } },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "corrupt" });
    expect((err as Error).message).toContain("garbage");
  });

  it("needs at least one track", async () => {
    await expect(mixdown([], out("none.wav"), { format: { kind: "wav" } })).rejects.toMatchObject({ code: "invalid_argument" });
  });
});

describe("mp3", () => {
  it("encodes audio that decodes back to the same length", async () => {
    const src = await speech("The quarterly budget review is scheduled for next week.");
    const srcInfo = await analyzeAudio(src);
    const info = await encodeMp3(src, out("speech.mp3"));
    expect(info.sizeBytes).toBeGreaterThan(1000);
    const p = await probe(out("speech.mp3"));
    expect(p.audio).toMatchObject({ codec: "mp3", sampleRate: 16000 });
    const decoded = await analyzeAudio(out("speech.mp3"));
    expect(Math.abs(decoded.durationMs - srcInfo.durationMs)).toBeLessThan(100);
    expect(decoded.silent).toBe(false);
  });
});

describe("timeouts and aborts", () => {
  it("kills ffmpeg when the signal fires and says aborted", async () => {
    const ac = new AbortController();
    const long = await tone({ seconds: 60, name: "long.wav" });
    const running = encodeMp3(long, out("aborted.mp3"), { signal: ac.signal, onProgress: () => ac.abort(new Error("step cancelled")) });
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "aborted", retryable: true });
    expect((err as Error).message).toContain("step cancelled");
    expect((await readdir(dir)).filter((f) => f.startsWith("aborted.mp3"))).toEqual([]);
  });

  it("kills ffmpeg after its timeout and says timeout (retryable)", async () => {
    const long = await tone({ seconds: 60, name: "long.wav" });
    await expect(encodeMp3(long, out("slow.mp3"), { timeoutMs: 1 })).rejects.toMatchObject({ code: "timeout", retryable: true });
  });
});
