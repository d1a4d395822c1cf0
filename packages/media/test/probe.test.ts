import { describe, expect, it } from "vitest";
import { MediaError, audioDurationMs, probe, startOffsetFrom, trackStartOffset } from "../src/index";
import { emptyWav, garbage, tone, videoOnly } from "./fixtures";

const webmTrack = (offset: number) =>
  tone({ seconds: 3, sampleRate: 48000, tsOffset: offset, name: "track.webm", out: ["-ac", "1", "-c:a", "libopus", "-f", "webm"] });

describe("probe", () => {
  it("reports format, duration, streams and whether there is audio or video", async () => {
    const p = await probe(await tone({ seconds: 5 }));
    expect(p.format).toBe("wav");
    expect(p.duration).toBeCloseTo(5, 2);
    expect(p.hasAudio).toBe(true);
    expect(p.hasVideo).toBe(false);
    expect(p.audio).toMatchObject({ type: "audio", codec: "pcm_s16le", sampleRate: 16000, channels: 1 });

    const v = await probe(await videoOnly());
    expect(v.hasAudio).toBe(false);
    expect(v.hasVideo).toBe(true);
    expect(v.audio).toBeNull();
  });

  it("reads a WebM track's start time from its audio stream", async () => {
    const p = await probe(await webmTrack(2.5));
    expect(p.audio!.startTime).toBeGreaterThan(2.4);
    expect(p.startTime).toBeGreaterThan(2.4);
  });

  it("refuses bytes that are no media file as corrupt, and not retryable", async () => {
    const err = await probe(await garbage()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "corrupt", retryable: false });
    expect((err as Error).message).toMatch(/corrupt or not a supported/);
  });

  it("says not_found for a missing file", async () => {
    await expect(probe("/nonexistent/track.webm")).rejects.toMatchObject({ code: "not_found", retryable: false });
  });
});

describe("track start offset (behaviour §5.2)", () => {
  it("prefers the audio stream's start time", () => {
    expect(startOffsetFrom({ streamStart: 1.5, containerStart: 2, firstPacketDts: 3 })).toEqual({ seconds: 1.5, source: "stream" });
  });
  it("falls back to the container start time when the stream's is not positive", () => {
    expect(startOffsetFrom({ streamStart: 0, containerStart: 2, firstPacketDts: 3 })).toEqual({ seconds: 2, source: "container" });
    expect(startOffsetFrom({ streamStart: null, containerStart: 2, firstPacketDts: null })).toEqual({ seconds: 2, source: "container" });
  });
  it("falls back to the first packet's DTS, then to 0", () => {
    expect(startOffsetFrom({ streamStart: -1, containerStart: 0, firstPacketDts: 0.7 })).toEqual({ seconds: 0.7, source: "first_packet" });
    expect(startOffsetFrom({ streamStart: null, containerStart: null, firstPacketDts: null })).toEqual({ seconds: 0, source: "none" });
    expect(startOffsetFrom({ streamStart: Number.NaN, containerStart: -3, firstPacketDts: 0 })).toEqual({ seconds: 0, source: "none" });
  });

  it("reads the offset of a real WebM track and 0 for a file that starts at zero", async () => {
    const offset = await trackStartOffset(await webmTrack(2.5));
    expect(offset.source).toBe("stream");
    // Opus' pre-skip moves the first timestamp a few ms before the requested offset.
    expect(offset.seconds).toBeGreaterThan(2.45);
    expect(offset.seconds).toBeLessThanOrEqual(2.5);
    expect(await trackStartOffset(await tone({ seconds: 1 }))).toEqual({ seconds: 0, source: "none" });
  });

  it("is an error, not a silent 0, for a file without audio", async () => {
    await expect(trackStartOffset(await videoOnly())).rejects.toMatchObject({ code: "no_audio" });
  });
});

describe("audio duration in ms", () => {
  it("sums packet durations: 5 s of audio is 5000 ms", async () => {
    expect(await audioDurationMs(await tone({ seconds: 5 }))).toBeCloseTo(5000, 0);
  });
  it("counts the audio, not the start offset, of a WebM track", async () => {
    const ms = await audioDurationMs(await webmTrack(2.5));
    expect(ms).toBeGreaterThan(2900);
    expect(ms).toBeLessThan(3100);
  });
  it("is 0 (never NaN or negative) for a file with no samples", async () => {
    const ms = await audioDurationMs(await emptyWav());
    expect(ms).toBe(0);
  });
});
