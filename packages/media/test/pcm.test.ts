// Streamed PCM decoding for the speech backends.
import { describe, expect, it } from "vitest";
import { decodePcm, isMediaError } from "../src/index";
import { tone } from "./fixtures";

async function collect(blocks: AsyncIterable<Int16Array>): Promise<Int16Array[]> {
  const out: Int16Array[] = [];
  for await (const b of blocks) out.push(b);
  return out;
}

describe("decodePcm", () => {
  it("streams 16-bit mono samples at the asked rate, whatever the input's", async () => {
    const input = await tone({
      seconds: 2,
      sampleRate: 44100,
      volume: 0.5,
      name: "tone44-stereo.mp3",
      out: ["-ac", "2", "-c:a", "libmp3lame", "-f", "mp3"],
    });
    const blocks = await collect(decodePcm(input, { sampleRate: 16_000, inputFormat: "mp3" }));
    const samples = blocks.reduce((n, b) => n + b.length, 0);
    expect(samples).toBeGreaterThan(31_000);
    expect(samples).toBeLessThan(34_000);
    const peak = Math.max(...blocks.map((b) => b.reduce((m, v) => Math.max(m, Math.abs(v)), 0)));
    // lavfi sine is 1/8 of full scale, halved by the volume filter: about 2000 before mp3 and downmix.
    expect(peak).toBeGreaterThan(1000);
  });

  it("fails a missing file as not_found and a URL as a caller's mistake", async () => {
    const missing = await collect(decodePcm("/nonexistent/audio.mp3")).catch((e: unknown) => e);
    expect(isMediaError(missing, "not_found")).toBe(true);
    const url = await collect(decodePcm("http://127.0.0.1:9/audio.mp3")).catch((e: unknown) => e);
    expect(isMediaError(url, "invalid_argument")).toBe(true);
  });

  it("kills ffmpeg when the signal fires", async () => {
    const input = await tone({ seconds: 30, name: "long.wav" });
    const controller = new AbortController();
    let blocks = 0;
    const err = await (async () => {
      for await (const _ of decodePcm(input, { signal: controller.signal })) {
        if (++blocks === 1) controller.abort(new Error("run cancelled"));
      }
    })().catch((e: unknown) => e);
    expect(isMediaError(err, "aborted")).toBe(true);
    expect((err as Error).message).toMatch(/run cancelled/);
  });
});
