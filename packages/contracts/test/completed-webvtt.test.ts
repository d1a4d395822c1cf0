// transcript.completed v2 carries the WebVTT once (src/transcripts/completed-webvtt.ts): each topic's
// WebVTT as parts of the transcript's must give back exactly what v1 carried, whatever the topics.
import { describe, expect, it } from "vitest";
import type { Word } from "../src/transcripts/api";
import { completedTexts, completedWebvtt, gunzipText, partsOf, textOfParts } from "../src/transcripts/completed-webvtt";
import { TranscriptCompleted } from "../src/transcripts/events";
import { sampleTranscriptState } from "../src/testing";
import { topicsToWebvtt, wordsToWebvtt, type TopicWords } from "../src/transcripts/render";

const w = (text: string, start: number, speaker = 0): Word => ({ text, start, end: start + 0.4, speaker });
const topicOf = (words: Word[], i = 0) => ({
  id: `t${i}`,
  title: `T${i}`,
  summary: "",
  timestamp: words[0]?.start ?? 0,
  duration: null,
  words,
});

/** The v2 data of a completion of `topics` with stored WebVTT `webvtt` (the column: topicsToWebvtt). */
function v2(topics: TopicWords[], webvtt: string | null = topicsToWebvtt(topics)) {
  const { webvtt_gzip, topicParts } = completedWebvtt(webvtt, topics);
  return {
    data: TranscriptCompleted.parse({
      transcript: { ...state, webvtt: undefined },
      webvtt_gzip,
      topics: topics.map((t, i) => ({ ...topicOf([...t.words], i), words: undefined, webvtt_parts: topicParts[i] })),
      run_id: "r",
      completed_at: "2026-11-25T10:00:00Z",
    }),
    topicParts,
  };
}

/** What v1 carried: the stored WebVTT and each topic's own (wordsToWebvtt of its words). */
function expectSameAsV1(topics: TopicWords[], webvtt: string | null = topicsToWebvtt(topics)) {
  const { data } = v2(topics, webvtt);
  const texts = completedTexts(data);
  expect(texts.webvtt).toBe(webvtt);
  expect(texts.topics.map((t) => t.webvtt)).toEqual(topics.map((t) => wordsToWebvtt(t.words)));
  return data;
}

/** Bytes of the topics' parts as JSON: what v2 adds to the compressed WebVTT. */
const partsBytes = (parts: unknown) => JSON.stringify(parts).length;

const state = sampleTranscriptState({ id: "x", version: 3 });

/** Sentences of `n` words ("…." every 8th) by one speaker from `t0`. */
const monologue = (n: number, t0: number, speaker = 0, from = 0) =>
  Array.from({ length: n }, (_, i) => w(` w${from + i}${(from + i) % 8 === 7 ? "." : ""}`, t0 + i * 0.5, speaker));

describe("a topic's WebVTT is not the transcript's cut at the topic boundaries", () => {
  it("a segment the transcript runs across a boundary is cut in two in the topics' (so parts carry the edges as text)", () => {
    // One speaker, no sentence end at the boundary: one cue in the transcript's WebVTT, one per topic in theirs.
    const topics = [topicOf([w("Hello", 0), w(" there", 0.5)]), topicOf([w(" again.", 1)], 1)];
    const whole = topicsToWebvtt(topics);
    expect(whole.match(/-->/g)).toHaveLength(1);
    expect(topics.map((t) => wordsToWebvtt(t.words).match(/-->/g)!.length)).toEqual([1, 1]);
    expectSameAsV1(topics);
  });
  it("a cut moved at a boundary keeps a monologue's cues out of step with the transcript's for a while", () => {
    const words = monologue(400, 0);
    const topics = [topicOf(words.slice(0, 13)), topicOf(words.slice(13), 1)];
    const whole = new Set(topicsToWebvtt(topics).split("\n\n").slice(1));
    const second = wordsToWebvtt(topics[1]!.words).split("\n\n").slice(1);
    expect(second.filter((cue) => !whole.has(cue.replace(/\n$/, "")) && !whole.has(cue)).length).toBeGreaterThan(1);
    expectSameAsV1(topics);
  });
});

describe("transcript.completed v2 gives back what v1 carried", () => {
  it("no topics", () => {
    expectSameAsV1([]);
    // A transcript whose topics were never set has no WebVTT (null), not an empty one.
    const data = expectSameAsV1([], null);
    expect(data.webvtt_gzip).toBeNull();
  });
  it("topics without words (empty, or legacy text only) are an empty WebVTT, taken from the transcript's header", () => {
    const topics = [topicOf([]), topicOf([w("Hi.", 1)], 1), topicOf([], 2)];
    const { topicParts } = v2(topics);
    expect(topicParts[0]).toEqual([[0, 7]]);
    expectSameAsV1(topics);
    expectSameAsV1([topicOf([])], null);
  });
  it("speaker changes at, before and after the boundaries", () => {
    expectSameAsV1([topicOf([w("A", 0, 0), w(" b", 1, 1)]), topicOf([w(" c", 2, 1), w(" d", 3, 0)], 1), topicOf([w(" e", 4, 2)], 2)]);
    expectSameAsV1([topicOf([w("A", 0, 0)]), topicOf([w(" b", 1, 1)], 1)]);
  });
  it("one speaker across every boundary, sentences long and short, non-ASCII and emoji (UTF-16 offsets)", () => {
    const words = monologue(300, 0).map((x, i) => (i % 11 === 0 ? { ...x, text: ` naïve👋${i}` } : x));
    const topics = [
      topicOf(words.slice(0, 7)),
      topicOf(words.slice(7, 150), 1),
      topicOf(words.slice(150, 151), 2),
      topicOf(words.slice(151), 3),
    ];
    expectSameAsV1(topics);
  });
  it("a stored WebVTT that is not the topics' (written before the topics changed, or by hand) is still exact", () => {
    const topics = [topicOf(monologue(30, 0)), topicOf(monologue(30, 20, 1, 30), 1)];
    expectSameAsV1(topics, "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n<v Speaker0>something else\n");
    expectSameAsV1(topics, null);
  });
  it("random meetings: speakers, sentence ends and topic boundaries anywhere", () => {
    let seed = 20;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(rand() * 200);
      const words = Array.from({ length: n }, (_, i) =>
        w(
          ` ${"x".repeat(1 + Math.floor(rand() * 12))}${rand() < 0.15 ? "." : rand() < 0.05 ? "?" : ""}`,
          i * 0.3,
          rand() < 0.2 ? Math.floor(rand() * 3) : 0,
        ),
      );
      const topics: ReturnType<typeof topicOf>[] = [];
      let from = 0;
      while (from < n || topics.length === 0) {
        const to = Math.min(n, from + Math.floor(rand() * 60));
        topics.push(topicOf(words.slice(from, to), topics.length));
        from = to;
        if (rand() < 0.05) topics.push(topicOf([], topics.length));
      }
      expectSameAsV1(topics);
    }
  });
  it("old events (v1: the WebVTT in the state and in every topic) are read as they were", () => {
    const topics = [topicOf([w("A", 0, 0)]), topicOf([w(" b", 1, 1)], 1)];
    const webvtt = topicsToWebvtt(topics);
    const v1 = TranscriptCompleted.parse({
      transcript: { ...state, webvtt },
      topics: topics.map((t, i) => ({ ...topicOf([...t.words], i), words: undefined, webvtt: wordsToWebvtt(t.words) })),
      run_id: "r",
      completed_at: "2026-11-25T10:00:00Z",
    });
    const texts = completedTexts(v1);
    expect(texts.webvtt).toBe(webvtt);
    expect(texts.topics.map((t) => t.webvtt)).toEqual(topics.map((t) => wordsToWebvtt(t.words)));
    expect(completedTexts(v2(topics).data)).toEqual(texts);
  });
  it("a topic's parts are a few ranges: its text travels once, in the compressed WebVTT", () => {
    const topics = Array.from({ length: 20 }, (_, i) => topicOf(monologue(300, i * 150, i % 3, i * 300), i));
    const { data, topicParts } = v2(topics);
    expect(gunzipText(data.webvtt_gzip!)).toBe(topicsToWebvtt(topics));
    for (const parts of topicParts) expect(partsBytes(parts)).toBeLessThan(300);
  });
});

describe("parts", () => {
  it("pieces found in the source are ranges (merged when they meet), the others text", () => {
    expect(partsOf(["ab", "cd", "x", "ef"], "abcdef")).toEqual([[0, 4], "x", [4, 6]]);
    expect(partsOf(["zz", "yy"], "abc")).toEqual(["zzyy"]);
    expect(textOfParts([[0, 4], "x", [4, 6]], "abcdef")).toBe("abcdxef");
  });
  it("a range outside the source is an error, not a shorter text", () => {
    expect(() => textOfParts([[2, 9]], "abc")).toThrow(/outside/);
  });
});
