import { describe, expect, it } from "vitest";
import { PeakReducer, analyzeAudio, assertAudible, waveform, WAVEFORM_SEGMENTS } from "../src/index";
import { emptyWav, ffmpegFixture, garbage, silence, speech, tone } from "./fixtures";

describe("peak reducer", () => {
  it("returns exactly the requested number of points, normalised to the loudest", () => {
    const r = new PeakReducer();
    const s = new Float32Array(8000 * 3);
    for (let i = 0; i < s.length; i++) s[i] = i < 8000 ? 0.25 : i < 16000 ? -0.5 : 0.1;
    r.push(s);
    const w = r.waveform(3);
    expect(w).toEqual([0.5, 1, 0.2]);
  });

  it("gives zeros, not NaN, for silence and for no samples at all", () => {
    const silent = new PeakReducer();
    silent.push(new Float32Array(1000));
    expect(silent.waveform(5)).toEqual([0, 0, 0, 0, 0]);
    expect(new PeakReducer().waveform(4)).toEqual([0, 0, 0, 0]);
    expect(new PeakReducer().levels()).toEqual({ peak: 0, peakDb: -120, rmsDb: -120 });
  });

  it("ignores NaN and infinite samples", () => {
    const r = new PeakReducer();
    r.push(new Float32Array([Number.NaN, 0.5, Number.POSITIVE_INFINITY, -0.25, Number.NaN]));
    const w = r.waveform(10);
    expect(w.every((v) => Number.isFinite(v) && v >= 0 && v <= 1)).toBe(true);
    expect(Math.max(...w)).toBe(1);
    expect(r.levels().peak).toBe(0.5);
  });

  it("stretches audio shorter than the point count instead of leaving gaps", () => {
    const r = new PeakReducer();
    r.push(new Float32Array(80 * 2).fill(0.3)); // two 10 ms blocks
    expect(r.waveform(6)).toEqual([1, 1, 1, 1, 1, 1]);
  });
});

describe("waveform of real audio (behaviour §7.3)", () => {
  it("has 255 finite points in [0, 1] with the loudest at 1", async () => {
    const w = await waveform(await speech("Action items: Alice sends the report, Bob books the room."));
    expect(w).toHaveLength(WAVEFORM_SEGMENTS);
    expect(w.every((v) => Number.isFinite(v) && v >= 0 && v <= 1)).toBe(true);
    expect(Math.max(...w)).toBe(1);
    expect(JSON.stringify(w)).not.toContain("null");
  });

  it("is all zeros for silent audio and for a file with no samples", async () => {
    const silent = await analyzeAudio(await silence(3));
    expect(silent.waveform).toEqual(new Array(255).fill(0));
    expect(silent).toMatchObject({ silent: true, empty: false, peak: 0, rmsDb: -120 });
    expect(silent.durationMs).toBeCloseTo(3000, -1);

    const empty = await analyzeAudio(await emptyWav());
    expect(empty.waveform).toEqual(new Array(255).fill(0));
    expect(empty).toMatchObject({ silent: true, empty: true, durationMs: 0 });
  });

  it("tells low noise from speech", async () => {
    const hiss = await ffmpegFixture("hiss.wav", [
      "-f",
      "lavfi",
      "-i",
      "anoisesrc=d=2:c=white:r=16000:a=0.0005",
      "-c:a",
      "pcm_s16le",
      "-f",
      "wav",
    ]);
    expect((await analyzeAudio(hiss)).silent).toBe(true);
    expect((await analyzeAudio(await tone({ seconds: 1, volume: 0.1 }))).silent).toBe(false);
  });

  it("assertAudible fails silent and empty audio with a clear, non-retryable error", async () => {
    await expect(assertAudible(await silence(3))).rejects.toMatchObject({
      code: "silent",
      retryable: false,
      message: expect.stringMatching(/silent/),
    });
    await expect(assertAudible(await emptyWav())).rejects.toMatchObject({
      code: "silent",
      message: expect.stringMatching(/no audio samples/),
    });
    await expect(assertAudible(await garbage())).rejects.toMatchObject({ code: "corrupt" });
  });
});
