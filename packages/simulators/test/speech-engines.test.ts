// Speech synthesis uses flite when it is installed and espeak-ng otherwise; both give one track per
// speaker at its offset in the meeting, and the two engines' fixtures never share a cache entry.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readWav } from "@scribe/ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { speechEngine, synthesizeMeeting, type MeetingScript } from "../src/speech/synth";

const script: MeetingScript = {
  name: "engine-check",
  speakers: [
    { id: "a", name: "Ann", voice: "kal16" },
    { id: "b", name: "Ben", voice: "awb" },
  ],
  leadIn: 0.5,
  turns: [
    { speaker: "a", text: "The budget report is ready." },
    { speaker: "b", text: "Thank you, I will read it today.", gapBefore: 1 },
  ],
};

let cache: string;
beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), "scribe-speech-"));
});
afterAll(async () => rm(cache, { recursive: true, force: true }));

describe("speech engines", () => {
  it("prefers flite when it is installed (deploy/ensure-deps.sh installs it)", async () => {
    expect(await speechEngine()).toBe("flite");
  });

  it.each(["flite", "espeak-ng"] as const)(
    "%s: one track per speaker, the second starting after the first turn and the pause",
    async (engine) => {
      const fx = await synthesizeMeeting(script, cache, engine);
      expect(fx.truth.tracks.map((t) => t.name)).toEqual(["Ann", "Ben"]);
      const [ann, ben] = fx.truth.tracks;
      expect(ann!.offset).toBeCloseTo(0.5, 3);
      expect(ben!.offset).toBeGreaterThan(ann!.offset + ann!.duration + 0.9);
      for (const t of fx.truth.tracks) {
        const wav = await readWav(fx.trackPaths[t.speaker]!);
        expect(wav.sampleRate).toBe(16000);
        expect(wav.samples.length / 16000).toBeCloseTo(t.duration, 2);
        expect(wav.samples.reduce((m, x) => Math.max(m, Math.abs(x)), 0)).toBeGreaterThan(1000);
      }
    },
  );

  it("keeps each engine's fixture in its own cache entry", async () => {
    const flite = await synthesizeMeeting(script, cache, "flite");
    const espeak = await synthesizeMeeting(script, cache, "espeak-ng");
    expect(espeak.dir).toBe(`${flite.dir}-espeak-ng`);
  });
});
