// transcript.updated v3 carries a changed WebVTT compressed (src/transcripts/updated-webvtt.ts): every
// reader gets from a v3 event exactly the change a v2 event (the WebVTT as text) gave, and reads the
// v2 events the stream still holds as before.
import { describe, expect, it } from "vitest";
import { sampleTranscriptState } from "../src/testing";
import { InvalidEventError, makeEvent, parseEvent, type ScribeEvent } from "../src/registry";
import { TranscriptUpdated, type TranscriptState } from "../src/transcripts/events";
import { topicsToWebvtt } from "../src/transcripts/render";
import { carriedWebvtt, transcriptChange, transcriptUpdated } from "../src/transcripts/updated-webvtt";

const T = "2026-11-25T10:00:00.000Z";
const state = (webvtt: string | null): TranscriptState =>
  sampleTranscriptState({ id: "t", version: 4, created_at: T, updated_at: T, webvtt });

/** The event as a reader gets it from the stream: built by its producer, serialized, parsed. */
function onTheWire(data: TranscriptUpdated, dataschema?: string): ScribeEvent<"transcript.updated"> {
  const { event } = makeEvent("transcript.updated", data, { source: "test", time: new Date("2026-11-25T10:00:00Z") });
  return parseEvent(JSON.stringify(dataschema ? { ...event, dataschema } : event)) as ScribeEvent<"transcript.updated">;
}

/** A v2 event's data: the state, its WebVTT as text when the change changed it. */
function v2(s: TranscriptState, webvttChanged: boolean): TranscriptUpdated {
  const { webvtt, ...rest } = s;
  return webvttChanged ? { ...rest, webvtt } : rest;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => ({ text: ` w${i}`, start: i * 0.4, end: i * 0.4 + 0.3, speaker: i % 3 }));
const WEBVTTS: [string, string | null][] = [
  ["none (null: the topics were cleared)", null],
  ["empty", ""],
  ["the header only", "WEBVTT\n"],
  // No lone surrogate: the stored WebVTT is a text column's UTF-8, which cannot hold one.
  [
    "quotes, backslashes, controls, non-ASCII, emoji, line separators",
    'WEBVTT\n\n00:00.000 --> 00:01.000\n<v "Zoë" \\ 1>\t\u0001\u007f\u2028 naïve 👋',
  ],
  ["a cue per word, an hour", topicsToWebvtt([{ words: words(9000) }])],
];

describe("transcript.updated v3 reads as v2 did", () => {
  for (const [name, webvtt] of WEBVTTS)
    it(`a changed WebVTT, ${name}: compressed on the wire, exactly the same change read back`, () => {
      const event = onTheWire(transcriptUpdated(state(webvtt), true));
      expect(event.dataschema).toBe("urn:scribe:event:transcript.updated:v3");
      expect(event.data).not.toHaveProperty("webvtt");
      expect(event.data.webvtt_gzip === null).toBe(webvtt === null);
      expect(carriedWebvtt(event.data)).toBe(webvtt);
      const change = transcriptChange(event.data);
      expect(change).toEqual(transcriptChange(onTheWire(v2(state(webvtt), true), "urn:scribe:event:transcript.updated:v2").data));
      expect(change).toEqual({ ...state(webvtt) });
      expect(change).not.toHaveProperty("webvtt_gzip");
    });

  it("an unchanged WebVTT is left out, in v3 as in v2: the reader keeps the one it has", () => {
    const s = state("WEBVTT\n\nkept");
    const v3 = onTheWire(transcriptUpdated(s, false));
    expect(v3.data).not.toHaveProperty("webvtt");
    expect(v3.data).not.toHaveProperty("webvtt_gzip");
    expect(carriedWebvtt(v3.data)).toBeUndefined();
    const old = onTheWire(v2(s, false), "urn:scribe:event:transcript.updated:v2");
    expect(transcriptChange(v3.data)).toEqual(transcriptChange(old.data));
    expect(transcriptChange(v3.data)).not.toHaveProperty("webvtt");
  });

  it("reads a v2 event as it did: the WebVTT as text, null or absent", () => {
    for (const webvtt of ["WEBVTT\n\nold", null]) {
      const old = onTheWire(v2(state(webvtt), true), "urn:scribe:event:transcript.updated:v2");
      expect(carriedWebvtt(old.data)).toBe(webvtt);
      expect(transcriptChange(old.data)).toEqual(state(webvtt));
    }
  });

  it("is several times smaller than v2 for a long WebVTT", () => {
    const s = state(WEBVTTS.at(-1)![1]);
    const size = (d: TranscriptUpdated) => JSON.stringify(onTheWire(d)).length;
    expect(size(transcriptUpdated(s, true)) * 4).toBeLessThan(size(v2(s, true)));
  });

  it("refuses an event that carries the WebVTT both ways, naming the field", () => {
    const both = { ...state("WEBVTT\n\na"), webvtt_gzip: transcriptUpdated(state("WEBVTT\n\nb"), true).webvtt_gzip };
    expect(TranscriptUpdated.safeParse(both).success).toBe(false);
    const { event } = makeEvent("transcript.updated", v2(state("WEBVTT\n\na"), true), { source: "test", time: new Date() });
    const raw = JSON.stringify({ ...event, data: { ...event.data, webvtt_gzip: both.webvtt_gzip } });
    expect(() => parseEvent(raw)).toThrow(InvalidEventError);
    expect(() => parseEvent(raw)).toThrow(/webvtt_gzip: carries the WebVTT twice/);
  });
});
