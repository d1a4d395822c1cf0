import { describe, expect, it } from "vitest";
import { computeMaxSubjects, computeTopicChunkSize, topicChunks } from "../src/summary/chunking";
import { cleanTitle, stripTaskPrefix, transcriptText, wordsToSegments } from "../src/summary/text";
import type { Word } from "../src/types";

const topicsFor = (minutes: number) => {
  const words = minutes * 150;
  return Math.ceil(words / computeTopicChunkSize(minutes * 60, words));
};

describe("topic chunking", () => {
  it.each([
    [5, 2, 3],
    [10, 3, 5],
    [30, 8, 12],
    [60, 14, 20],
    [120, 24, 34],
    [180, 32, 45],
  ])("a %i-minute meeting at 150 words a minute gets %i to %i topics", (minutes, lo, hi) => {
    const n = topicsFor(minutes);
    expect(n).toBeGreaterThanOrEqual(lo);
    expect(n).toBeLessThanOrEqual(hi);
  });

  it("keeps chunks between 375 and 1500 words and never makes more than 50 topics", () => {
    for (const minutes of [1, 2, 5, 17, 45, 90, 240, 600]) {
      const size = computeTopicChunkSize(minutes * 60, minutes * 150);
      expect(size).toBeGreaterThanOrEqual(375);
      expect(size).toBeLessThanOrEqual(1500);
    }
    expect(topicsFor(240)).toBeLessThanOrEqual(50);
    expect(computeTopicChunkSize(60, 100)).toBeGreaterThanOrEqual(375);
  });

  it("falls back to 375 words for a zero or negative duration or word count", () => {
    expect(computeTopicChunkSize(0, 1000)).toBe(375);
    expect(computeTopicChunkSize(-5, 1000)).toBe(375);
    expect(computeTopicChunkSize(600, 0)).toBe(375);
  });

  it.each([
    [0, 1],
    [-10, 1],
    [60, 1],
    [120, 1],
    [300, 1],
    [301, 2],
    [900, 2],
    [901, 3],
    [1800, 3],
    [1801, 4],
    [2700, 4],
    [2701, 5],
    [3600, 5],
    [3601, 6],
    [36000, 6],
  ])("allows %i s of meeting %i subjects", (seconds, n) => {
    expect(computeMaxSubjects(seconds)).toBe(n);
  });

  const many = (n: number, text = " word"): Word[] =>
    Array.from({ length: n }, (_, i) => ({ text, start: i * 0.4, end: i * 0.4 + 0.3, speaker: 0 }));

  it("merges a short chunk into the next and flushes the remainder (file and live pipelines)", () => {
    // 900 words over 6 min → 375-word chunks (the floor); each is long enough on its own, the rest is flushed.
    expect(topicChunks(many(900), { durationSeconds: 360 }).map((c) => c.length)).toEqual([375, 375, 150]);
    // A short transcript is one topic, however little text it has.
    expect(topicChunks(many(20), { durationSeconds: 10 }).map((c) => c.length)).toEqual([20]);
    // Tiny words: 375-word chunks of 3 characters (1125 chars) each pass 750, "a" words (2 chars) do not alone.
    expect(topicChunks(many(800, " a"), { durationSeconds: 300 }).map((c) => c.length)).toEqual([750, 50]);
  });

  it("makes every chunk a topic in the multitrack pipeline", () => {
    expect(topicChunks(many(800, " a"), { durationSeconds: 300, accumulate: false }).map((c) => c.length)).toEqual([375, 375, 50]);
  });
});

describe("transcript text", () => {
  it("names speakers from participants and cuts long segments at punctuation", () => {
    const words: Word[] = [
      { text: " Hello", start: 0, end: 1, speaker: 0 },
      { text: " there.", start: 1, end: 2, speaker: 0 },
      { text: " Hi.", start: 2, end: 3, speaker: 1 },
      { text: ` ${"long ".repeat(30).trim()}.`, start: 3, end: 4, speaker: 2 },
      { text: " More.", start: 4, end: 5, speaker: 2 },
    ];
    expect(wordsToSegments(words)).toHaveLength(4);
    expect(transcriptText(words.slice(0, 3), [{ name: "Alice", speaker: 0 }])).toBe("Alice: Hello there.\nSpeaker 1: Hi.");
  });

  it.each([
    ["the quick brown fox", "The Quick Brown fox"],
    ['"Budget and hiring plan"', "Budget and Hiring Plan"],
    ["ROADMAP REVIEW FOR Q3", "Roadmap Review for q3"],
  ])("cleans the title %s", (raw, clean) => {
    expect(cleanTitle(raw)).toBe(clean);
  });

  it.each([
    ["Action: send the report", "Send the report"],
    ["TODO - book a room", "Book a room"],
    ["- Next step: call the vendor", "Call the vendor"],
    ["Action the refund", "Action the refund"],
  ])("strips the label from the task %s", (raw, task) => {
    expect(stripTaskPrefix(raw)).toBe(task);
  });
});
