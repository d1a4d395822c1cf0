import { describe, expect, it } from "vitest";
import { readWav } from "../src/audio";
import { scriptHash, synthesizeMeeting, type MeetingScript } from "../../simulators/src/speech/synth";
import { standupFixture } from "./helpers";

const tiny: MeetingScript = {
  name: "tiny-check",
  speakers: [
    { id: "a", name: "Ann", voice: "kal16" },
    { id: "b", name: "Ben", voice: "rms" },
  ],
  leadIn: 1,
  turns: [
    { speaker: "a", text: "Hello Ben." },
    { speaker: "b", text: "Hello Ann.", gapBefore: 2 },
  ],
};

describe("synthesised meeting fixtures", () => {
  it("gives per-speaker tracks that line up with the mixed track at their offsets", async () => {
    const fx = await standupFixture();
    const mix = await readWav(fx.mixPath);
    expect(mix.sampleRate).toBe(16000);
    expect(mix.samples.length / 16000).toBeCloseTo(fx.truth.duration, 3);
    for (const track of fx.truth.tracks) {
      const t = await readWav(fx.trackPaths[track.speaker]!);
      const from = Math.round(track.offset * 16000);
      // Turns never overlap here, so inside this speaker's turns the mix is exactly the track.
      for (const turn of fx.truth.turns.filter((x) => x.speaker === track.speaker)) {
        const mid = Math.round(((turn.start + turn.end) / 2) * 16000);
        expect(Array.from(t.samples.subarray(mid - from, mid - from + 100))).toEqual(Array.from(mix.samples.subarray(mid, mid + 100)));
      }
    }
    const turns = fx.truth.turns;
    for (let i = 1; i < turns.length; i++) expect(turns[i]!.start).toBeGreaterThan(turns[i - 1]!.end);
    expect(fx.truth.words.slice(0, 3)).toEqual(["good", "morning", "everyone"]);
  });

  it("places turns after the configured lead-in and gaps, and caches by script", async () => {
    const fx = await synthesizeMeeting(tiny);
    const [first, second] = fx.truth.turns;
    expect(first!.start).toBeGreaterThanOrEqual(1);
    expect(second!.start - first!.end).toBeGreaterThanOrEqual(2);
    expect(fx.truth.tracks.map((t) => t.speaker)).toEqual(["a", "b"]);
    expect((await synthesizeMeeting(tiny)).dir).toBe(fx.dir);
    expect(scriptHash({ ...tiny, gap: 1 })).not.toBe(scriptHash(tiny));
  });
});
