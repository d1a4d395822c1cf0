// Generated media for the simulators: a tone in the platforms' formats and a test picture.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probe, renderTestVideo, renderTone, transcode } from "../src/index";
import { tone } from "./fixtures";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scribe-generate-"));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe("generated media", () => {
  it("renders a tone as Opus/WebM and as AAC/MP4 with the index first", async () => {
    await renderTone(join(dir, "tone.webm"), { seconds: 2, format: { kind: "opus", bitrateKbps: 32 } });
    await renderTone(join(dir, "tone.mp4"), { seconds: 2, format: { kind: "aac", bitrateKbps: 48 } });
    const webm = await probe(join(dir, "tone.webm"));
    const mp4 = await probe(join(dir, "tone.mp4"));
    expect([webm.demuxer, webm.audio?.codec]).toEqual(["matroska", "opus"]);
    expect([mp4.demuxer, mp4.audio?.codec]).toEqual(["mov", "aac"]);
    expect(mp4.duration).toBeCloseTo(2, 1);
  });

  it("encodes a recording as AAC/MP4", async () => {
    const info = await transcode(await tone({ seconds: 1 }), join(dir, "speech.mp4"), { format: { kind: "aac" } });
    expect(info.durationMs).toBeGreaterThan(900);
    expect((await probe(join(dir, "speech.mp4"))).audio?.codec).toBe("aac");
  });

  it("renders a test picture without audio", async () => {
    await renderTestVideo(join(dir, "video.webm"), { seconds: 1 });
    const info = await probe(join(dir, "video.webm"));
    expect([info.hasVideo, info.hasAudio]).toEqual([true, false]);
  });
});
