import { describe, expect, it } from "vitest";
import { OfflineDiarizer, OFFLINE_DIARIZER_DEFAULTS } from "../src/diarization/offline";
import { diarizationErrorRate } from "../src/metrics";
import { log, standupFixture } from "./helpers";

describe("offline diarizer", () => {
  it("separates the two speakers of a single-track meeting with at most 20% diarization error", async () => {
    const fx = await standupFixture();
    const segments = await new OfflineDiarizer({ ...OFFLINE_DIARIZER_DEFAULTS, logger: log }).diarize(fx.mixPath);
    const reference = fx.truth.turns.map((t) => ({ start: t.start, end: t.end, speaker: t.speakerIndex }));
    const der = diarizationErrorRate(reference, segments);
    console.log(
      `offline DER on ${fx.truth.script.name}: ${(der.der * 100).toFixed(1)}% (missed ${der.missed.toFixed(2)} s, false alarm ${der.falseAlarm.toFixed(2)} s, confusion ${der.confusion.toFixed(2)} s of ${der.total.toFixed(1)} s)`,
    );
    expect(new Set(segments.map((s) => s.speaker))).toEqual(new Set([0, 1]));
    expect(der.der).toBeLessThanOrEqual(0.2);
    for (const s of segments) expect(s.end).toBeGreaterThan(s.start);
  });

  it("finds a single speaker in one person's track", async () => {
    const fx = await standupFixture();
    const segments = await new OfflineDiarizer({ ...OFFLINE_DIARIZER_DEFAULTS, logger: log }).diarize(fx.trackPaths.alice!);
    expect(segments.length).toBeGreaterThan(0);
    expect(new Set(segments.map((s) => s.speaker))).toEqual(new Set([0]));
  });
});
