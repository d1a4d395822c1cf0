// Offline summaries of the scripted meetings scored against their truth (the scorer `pnpm bench
// quality` uses): every stated task found with its owner and deadline, every decision named in the
// long summary, a short summary that reads as prose, topic titles that are noun phrases.
import nlp from "compromise";
import { beforeAll, describe, expect, it } from "vitest";
import { ExtractiveSummariser } from "../src/summary/extractive";
import { summariseMeeting, type MeetingResult } from "../src/summary/meeting";
import type { SummaryContext } from "../src/types";
import { designReview, reportInvoiceStandup, summaryMeetings, type SummaryMeeting } from "../../simulators/src/speech/summary-meetings";
import { scoreSummary, scoreTasks } from "../../simulators/src/speech/summary-scoring";
import { recognisedTranscript, scriptTranscript, type MeetingTranscript } from "../../simulators/src/speech/summary-transcripts";
import { HEAVY, log } from "./helpers";

function summarise(t: MeetingTranscript): Promise<MeetingResult> {
  const ctx: SummaryContext = { participants: t.participants, sourceLanguage: "en", targetLanguage: "en" };
  return summariseMeeting(t.words, new ExtractiveSummariser(log), ctx, { durationSeconds: t.duration });
}

/** Prose: two or three sentences, nobody's name as a line's label. */
function expectProse(short: string | null): void {
  expect(short).toBeTruthy();
  const sentences = short!.split(/(?<=[.!?])\s+/).filter(Boolean);
  expect(sentences.length).toBeGreaterThanOrEqual(2);
  expect(sentences.length).toBeLessThanOrEqual(3);
  for (const s of sentences) expect(s).not.toMatch(/^[\p{L} ]+\d*: /u);
}

/**
 * A noun phrase: said after "we talked about the", the tagger reads it as one phrase of nouns and
 * adjectives ending in a noun ("Payment System"; not "Mobile App Faster", "Problems by Next", "Bob: I will").
 */
function expectNounPhrase(title: string): void {
  for (const part of title.toLowerCase().split(/,| and /)) {
    const doc = nlp(`we talked about the ${part.trim()}`);
    expect(doc.nouns().out("array"), title).toEqual(["we", `the ${part.trim()}`]);
    const tags = (doc.terms().json() as { terms: { tags: string[] }[] }[]).slice(4).map((t) => t.terms[0]!.tags);
    expect(tags[tags.length - 1], title).toContain("Noun");
    for (const t of tags) expect(t.includes("Noun") || t.includes("Adjective"), title).toBe(true);
  }
}

describe.each(summaryMeetings.map((m) => [m.script.name, m] as const))("offline summary of %s, on the script", (_name, meeting) => {
  let result: MeetingResult;
  let transcript: MeetingTranscript;
  beforeAll(async () => {
    transcript = await scriptTranscript(meeting);
    result = await summarise(transcript);
  });

  it("finds every stated task with its owner and deadline, and little else", () => {
    const { tasks } = scoreSummary(result.summary, meeting.truth);
    expect(tasks.missed).toEqual([]);
    expect(tasks.precision).toBeGreaterThanOrEqual(0.8);
  });

  it("names every decision in the long summary", () => {
    expect(scoreSummary(result.summary, meeting.truth).decisions.missing).toEqual([]);
  });

  it("writes the short summary as two or three sentences of prose", () => {
    expectProse(result.summary.shortSummary);
  });

  it("titles topics, subjects and the meeting with noun phrases", () => {
    for (const t of result.topics) expectNounPhrase(t.title);
    for (const s of result.summary.subjects) expectNounPhrase(s.subject);
    expectNounPhrase(result.title!);
  });

  it("gives the same summary for the same transcript", async () => {
    expect(await summarise(transcript)).toEqual(result);
  });
});

describe("offline action items on pocketsphinx's transcript of the synthesised audio", () => {
  // The two shortest meetings whose tasks include "I will …" (owner from the diarizer) and "Alice will …".
  const heard: SummaryMeeting[] = [reportInvoiceStandup, designReview];
  let results: MeetingResult[];
  beforeAll(async () => {
    const transcripts = await Promise.all(heard.map((m) => recognisedTranscript(m, { logger: log })));
    results = await Promise.all(transcripts.map(summarise));
  }, 2 * HEAVY); // two recordings of about 30 s each, decoded side by side

  it("finds at least 90 % of the stated tasks with at least 80 % precision", () => {
    const found = results.flatMap((r) => r.summary.actionItems?.next_steps ?? []);
    // Scored per meeting (owners are per meeting), summed.
    const scores = heard.map((m, i) => scoreTasks(results[i]!.summary.actionItems?.next_steps ?? [], m.truth.tasks));
    const matched = scores.reduce((a, s) => a + s.matched, 0);
    const expected = scores.reduce((a, s) => a + s.expected, 0);
    expect(matched / expected, JSON.stringify(scores.map((s) => s.missed))).toBeGreaterThanOrEqual(0.9);
    expect(matched / found.length, JSON.stringify(scores.map((s) => s.extra))).toBeGreaterThanOrEqual(0.8);
  });

  it('names every decision in the long summary (design-review\'s is said "we agree to …")', () => {
    for (const [i, m] of heard.entries()) expect(scoreSummary(results[i]!.summary, m.truth).decisions.missing, m.script.name).toEqual([]);
  });

  it("writes prose short summaries from it, naming each person once", () => {
    for (const r of results) {
      expectProse(r.summary.shortSummary);
      const names = r.summary.shortSummary!.match(/^(.*?) discussed /)![1]!.split(/, | and /);
      expect(names).toEqual([...new Set(names)]);
    }
  });

  it("titles topics, subjects and the meeting with noun phrases", () => {
    for (const r of results) {
      for (const t of r.topics) expectNounPhrase(t.title);
      for (const s of r.summary.subjects) expectNounPhrase(s.subject);
      expectNounPhrase(r.title!);
    }
  });
});
