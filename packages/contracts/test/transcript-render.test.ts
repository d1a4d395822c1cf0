// Segmentation and output formats against the reference scenarios (test_transcript_formats,
// test_webvtt*, test_processor_transcript_segment, test_search_snippets' WebVTT extraction).
import { describe, expect, it } from "vitest";
import {
  formatMmss,
  formatVttTime,
  renderTranscript,
  speakerName,
  topicView,
  topicsToWebvtt,
  transcriptToJsonSegments,
  transcriptToText,
  transcriptToTimestampedText,
  transcriptToWebvttNamed,
  webvttPlainText,
  wordsPerSpeaker,
  wordsToSegments,
  wordsToSegmentsBySentence,
  wordsToWebvtt,
} from "../src/transcripts/render";
import type { Word } from "../src/transcripts/api";

const w = (text: string, start: number, end: number, speaker = 0): Word => ({ text, start, end, speaker });
const topic = (words: Word[], extra: Partial<{ id: string; timestamp: number; transcript: string | null }> = {}) => ({
  id: extra.id ?? "t1",
  title: "Topic",
  summary: "Summary",
  timestamp: extra.timestamp ?? words[0]?.start ?? 0,
  transcript: extra.transcript ?? null,
  words,
});
const people = [
  { speaker: 0, name: "John Smith" },
  { speaker: 1, name: "Jane Doe" },
];
const twoTopics = [
  topic([w("Hello", 0, 1), w(" world.", 1, 2)]),
  topic([w("How", 65, 66, 1), w(" are", 66, 67, 1), w(" you?", 67, 68, 1)], { id: "t2" }),
];
// Alice says "Hello there." (0.0–1.0) and Bob "I'm good." (0.5–1.5); sorted by time they interleave.
const interleaved = [w("Hello ", 0, 0.5, 0), w("I'm ", 0.5, 0.8, 1), w("there.", 0.5, 1.0, 0), w("good.", 1.0, 1.5, 1)];
const alicebob = [
  { speaker: 0, name: "Alice" },
  { speaker: 1, name: "Bob" },
];

describe("speaker names and times", () => {
  it("names a speaker after the first participant holding the label, else Speaker N", () => {
    expect(speakerName(0, people)).toBe("John Smith");
    expect(speakerName(1, people)).toBe("Jane Doe");
    expect(speakerName(2, people)).toBe("Speaker 2");
    expect(speakerName(0, null)).toBe("Speaker 0");
    expect(speakerName(5, [])).toBe("Speaker 5");
  });

  it("formats [MM:SS] with whole minutes that may exceed 59", () => {
    expect([0, 5, 65, 125.7, 3661].map(formatMmss)).toEqual(["00:00", "00:05", "01:05", "02:05", "61:01"]);
  });

  it("formats WebVTT times with truncated milliseconds", () => {
    expect(formatVttTime(0)).toBe("00:00:00.000");
    expect(formatVttTime(1.5)).toBe("00:00:01.500");
    expect(formatVttTime(3723.4567)).toBe("01:02:03.456");
  });
});

describe("GET transcript formats", () => {
  it("renders text as '<name>: <text>' lines, one per segment, segments never spanning topics", () => {
    expect(transcriptToText(twoTopics, people)).toBe("John Smith: Hello world.\nJane Doe: How are you?");
  });

  it("renders text-timestamped with the segment start", () => {
    expect(transcriptToTimestampedText(twoTopics, people)).toBe("[00:00] John Smith: Hello world.\n[01:05] Jane Doe: How are you?");
  });

  it("renders webvtt-named with participant voices", () => {
    const vtt = transcriptToWebvttNamed([twoTopics[0]!], people);
    expect(vtt).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<v John Smith>Hello world.\n");
  });

  it("renders json segments with trimmed text and times", () => {
    expect(transcriptToJsonSegments(twoTopics, people)).toEqual([
      { speaker: 0, speaker_name: "John Smith", text: "Hello world.", start: 0, end: 2 },
      { speaker: 1, speaker_name: "Jane Doe", text: "How are you?", start: 65, end: 68 },
    ]);
  });

  it("gives empty output for no topics or topics without words", () => {
    for (const topics of [[], [topic([])]]) {
      expect(transcriptToText(topics, [])).toBe("");
      expect(transcriptToTimestampedText(topics, [])).toBe("");
      expect(transcriptToWebvttNamed(topics, []).trim()).toBe("WEBVTT");
      expect(transcriptToJsonSegments(topics, [])).toEqual([]);
    }
  });

  it("starts a new line at every speaker change", () => {
    const t = topic([w("Hello", 0, 1), w(" there.", 1, 2), w("Hi", 2, 3, 1), w(" back.", 3, 4, 1), w("Good", 4, 5), w(" morning.", 5, 6)]);
    expect(transcriptToText([t], alicebob).split("\n")).toEqual(["Alice: Hello there.", "Bob: Hi back.", "Alice: Good morning."]);
    expect(transcriptToJsonSegments([t], alicebob).map((s) => s.speaker_name)).toEqual(["Alice", "Bob", "Alice"]);
  });

  it("groups a multitrack recording's interleaved words into one sentence per speaker", () => {
    const t = [topic(interleaved)];
    expect(transcriptToWebvttNamed(t, alicebob, true)).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n<v Alice>Hello there.\n\n00:00:00.500 --> 00:00:01.500\n<v Bob>I'm good.\n",
    );
    expect(transcriptToText(t, alicebob, true)).toBe("Alice: Hello there.\nBob: I'm good.");
    expect(transcriptToTimestampedText(t, alicebob, true)).toBe("[00:00] Alice: Hello there.\n[00:00] Bob: I'm good.");
    expect(transcriptToJsonSegments(t, alicebob, true).map((s) => [s.speaker_name, s.text])).toEqual([
      ["Alice", "Hello there."],
      ["Bob", "I'm good."],
    ]);
    expect(transcriptToText(t, alicebob, false).split("\n")).toHaveLength(4);
  });

  it("dispatches on the format name", () => {
    expect(renderTranscript("text", twoTopics, people, false)).toEqual({
      transcript_format: "text",
      transcript: transcriptToText(twoTopics, people),
    });
    expect(renderTranscript("json", twoTopics, people, false).transcript).toHaveLength(2);
  });
});

describe("segmentation", () => {
  // The reference's 150-word single-speaker sample (with two short interjections by speakers 1 and 2).
  const sample =
    "5.12 5.48 the|5.48 5.8 different|5.8 6.3 projects|6.3 6.5 that|6.5 6.58 are|6.58 6.82 going|6.82 7.26 on|7.26 7.4 to|7.4 7.54 give|7.54 7.9 you|7.9 8.24 context|8.24 8.66 and|8.66 8.72 I|8.72 8.82 think|8.82 9.04 that's|9.04 9.12 what|9.12 9.24 we'll|9.24 9.32 do|9.32 9.52 this|9.52 9.76 week.|10.24 10.62 Um,|11.36 11.94 so,|12.46 12.92 um,|13.74 13.94 what|13.94 14.1 we're|14.1 14.24 going|14.24 14.34 to|14.34 14.8 do|14.8 14.98 at|14.98 15.04 H|15.04 15.16 of|15.16 15.26 you,|15.28 15.34 maybe.|15.36 15.52 you|15.52 15.62 can|15.62 15.98 introduce|15.98 16.42 yourself|16.42 16.68 to|16.68 16.72 the|16.72 17.52 team|17.87 18.65 quickly|18.65 19.63 and|20.91 21.55 Oh,|21.67 21.83 this|21.83 22.17 is|22.17 22.35 a|22.35 22.89 reflector|22.89 23.33 translating|23.33 23.73 into|23.73 23.95 French|23.95 24.15 for|24.15 24.43 me.|27.87 28.19 This|28.19 28.45 is|28.45 28.79 all|28.79 29.15 the|29.15 29.15 way,|29.53 29.59 please,|29.73 29.77 please,|29.77 29.83 please,|29.83 29.97 please.|29.97 30.17 Yeah,|30.25 30.33 that's|30.33 30.49 all|30.49 30.69 it's|30.69 30.69 right.|30.72 30.98 Right.:1|31.56 31.72 Yeah,:2|31.86 31.98 that's:2|31.98 32.2 right.:2|32.38 32.46 Because|32.46 32.58 I|32.58 32.78 thought|32.78 33.0 I'd|33.0 33.02 be|33.02 33.18 able|33.18 33.34 to|33.34 33.52 pull|33.52 33.68 out.|33.7 33.9 Yeah,|33.9 34.02 that|34.02 34.24 was|34.24 34.34 the|34.34 34.44 one|34.44 34.7 before|34.7 35.24 that.|35.84 36.46 Friends,|36.64 36.7 if|36.7 36.7 you|36.7 37.24 have|37.24 37.44 tell|37.44 37.68 us|37.68 37.82 if|37.82 38.04 it's|38.04 38.58 good,|38.96 39.1 exceptionally|39.1 39.6 good|39.6 39.86 and|39.86 40.0 tell|40.0 40.06 us|40.06 40.2 when|40.2 40.34 it's|40.34 40.6 exceptionally|40.6 40.94 bad.|40.96 41.26 We|41.26 41.44 don't|41.44 41.66 need|41.66 41.82 that|41.82 41.94 at|41.94 41.98 the|41.98 42.18 middle|42.18 42.36 of|42.36 42.7 age.|43.26 43.44 Okay,|43.68 43.76 yeah,|43.78 44.3 that|44.3 44.72 sentence|44.72 45.1 right|45.1 45.56 before.|46.08 46.36 it|46.36 47.0 realizing|47.0 47.28 that|47.28 47.28 I|47.28 47.64 was|47.64 48.06 saying|48.06 48.44 that|48.44 48.54 it's|48.54 48.78 interesting|48.78 48.96 that|48.96 49.08 it's|49.08 49.32 translating|49.32 49.56 the|49.56 49.76 French|49.76 50.16 was|50.16 50.4 completely|50.4 50.7 wrong.";
  const sampleWords = sample.split("|").map((entry) => {
    const [start, end, rest] = entry.split(" ") as [string, string, string];
    const [text, speaker] = rest.split(":");
    return w(` ${text}`, Number(start), Number(end), Number(speaker ?? 0));
  });

  it("splits a single speaker at punctuation once a segment exceeds 120 characters", () => {
    const segments = wordsToSegments(sampleWords);
    expect(segments.map((s) => s.speaker)).toEqual([0, 0, 0, 1, 2, 0, 0]);
    expect([segments[0]!.start, segments[3]!.start, segments[4]!.start, segments[5]!.start]).toEqual([5.12, 30.72, 31.56, 32.38]);
  });

  it("breaks interleaved multitrack words on every speaker change by default, by sentence in multitrack mode", () => {
    expect(wordsToSegments(interleaved)).toHaveLength(4);
    expect(wordsToSegmentsBySentence(interleaved)).toEqual([
      { text: "Hello there.", start: 0, end: 1, speaker: 0 },
      { text: "I'm good.", start: 0.5, end: 1.5, speaker: 1 },
    ]);
  });

  it("keeps two speakers saying the same words at the same times as two sentences in multitrack mode", () => {
    const words = ["speaking ", "at ", "the ", "same ", "time."].flatMap((t, i) => [
      w(t, 6.71 + i * 0.2, 6.91 + i * 0.2, 0),
      w(i === 0 ? "Speaking " : t, 6.71 + i * 0.2, 6.91 + i * 0.2, 1),
    ]);
    expect(wordsToSegments(words)).toHaveLength(10);
    const sentences = wordsToSegmentsBySentence(words);
    expect(sentences.map((s) => s.text)).toEqual(["speaking at the same time.", "Speaking at the same time."]);
  });

  it("makes one segment of one word", () => {
    expect(wordsToSegments([w("Hello", 0, 1)])).toEqual([{ text: "Hello", start: 0, end: 1, speaker: 0 }]);
  });
});

describe("the webvtt column", () => {
  it("is the bare header for no words or no topics", () => {
    expect(wordsToWebvtt([]).trim()).toBe("WEBVTT");
    expect(topicsToWebvtt([])).toBe("WEBVTT\n");
  });

  it("voices cues as Speaker<n> and groups a speaker's words", () => {
    expect(wordsToWebvtt([w("Hello", 0, 1)])).toBe("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n<v Speaker0>Hello\n");
    expect(wordsToWebvtt([w("Hello", 0, 0.5), w(" world", 0.5, 1)])).toContain("<v Speaker0>Hello world");
    const two = wordsToWebvtt([w("Hello", 0, 0.5), w("Hi", 0.6, 1, 1)]);
    expect(two).toContain("<v Speaker0>Hello");
    expect(two).toContain("<v Speaker1>Hi");
  });

  it("takes words from all topics in order and refuses words that go back in time", () => {
    const vtt = topicsToWebvtt([{ words: [w("First", 0, 0.5, 1), w("Second", 1, 1.5, 0)] }]);
    expect(vtt.indexOf("First")).toBeLessThan(vtt.indexOf("Second"));
    expect(() => topicsToWebvtt([{ words: [w("Second", 1, 1.5), w("First", 0, 0.5, 1)] }])).toThrow(
      /Words are not in sequence: Second and First/,
    );
  });
});

describe("topic projection", () => {
  it("derives transcript, duration and segments from the words", () => {
    const view = topicView(topic([w("Hello", 0, 1), w(" world.", 1, 2)]), false);
    expect(view).toMatchObject({
      id: "t1",
      transcript: "Hello world.",
      duration: 2,
      segments: [{ text: "Hello world.", start: 0, speaker: 0 }],
    });
  });

  it("segments a multitrack topic by sentence (2 segments) and a single-track one by speaker change (4)", () => {
    expect(topicView(topic(interleaved), true).segments.map((s) => s.text)).toEqual(["Hello there.", "I'm good."]);
    expect(topicView(topic(interleaved), false).segments).toHaveLength(4);
  });

  it("shows a topic without words as its stored text in one segment, duration null", () => {
    const view = topicView(topic([], { timestamp: 12, transcript: "legacy text" }), false);
    expect(view).toMatchObject({ transcript: "legacy text", duration: null, segments: [{ text: "legacy text", start: 12, speaker: 0 }] });
  });

  it("groups words per speaker in consecutive runs", () => {
    const runs = wordsPerSpeaker([w("a", 0, 1), w("b", 1, 2), w("c", 2, 3, 1), w("d", 3, 4)]);
    expect(runs.map((r) => [r.speaker, r.words.length])).toEqual([
      [0, 2],
      [1, 1],
      [0, 1],
    ]);
  });
});

describe("WebVTT plain text", () => {
  it("keeps cue text and drops voices, timings and arrows", () => {
    const text = webvttPlainText(
      "WEBVTT\n\n00:00:00.000 --> 00:00:10.000\n<v Speaker0>Hello world, this is a test.\n\n00:00:10.000 --> 00:00:20.000\n<v Speaker1>Indeed it is a test of WebVTT parsing.\n",
    );
    expect(text).toBe("Hello world, this is a test. Indeed it is a test of WebVTT parsing.");
  });

  it("is empty for empty, missing or header-less input and for a header without cues", () => {
    expect(webvttPlainText("")).toBe("");
    expect(webvttPlainText(null)).toBe("");
    expect(webvttPlainText("Not a valid WebVTT")).toBe("");
    expect(webvttPlainText("WEBVTT\nNo timestamps here")).toBe("");
  });

  it("reads cues without a trailing newline, with identifiers and CRLF line ends", () => {
    expect(webvttPlainText("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello world\n\n00:00:02.000 --> 00:00:04.000\nThis is a test")).toBe(
      "Hello world This is a test",
    );
    expect(webvttPlainText("WEBVTT\r\n\r\ncue-1\r\n00:00.000 --> 00:01.000\r\nline one\r\nline two\r\n")).toBe("line one\nline two");
  });
});
