import { beforeAll, describe, expect, it } from "vitest";
import { PocketsphinxStt } from "../src/stt/pocketsphinx";
import { OfflineDiarizer, OFFLINE_DIARIZER_DEFAULTS } from "../src/diarization/offline";
import { assignSpeakers } from "../src/diarization/assemble";
import { normaliseForWer, wordErrorRate } from "../src/metrics";
import { ExtractiveSummariser, findItems } from "../src/summary/extractive";
import { summariseMeeting, type MeetingResult } from "../src/summary/meeting";
import { infinitiveFirst, splitDeadline } from "../src/summary/nlp";
import type { SummaryContext, Word } from "../src/types";
import { HEAVY, log, MODEL_DIR, standupFixture } from "./helpers";

const ctx: SummaryContext = {
  participants: [
    { id: "p-alice", name: "Alice", speaker: 0 },
    { id: "p-bob", name: "Bob", speaker: 1 },
  ],
  sourceLanguage: "en",
  targetLanguage: "en",
};

describe("offline summariser on the synthesised meeting (speech → words → speakers → summary)", () => {
  // Short chunks on two processes: the chain also covers pocketsphinx on audio cut at pauses.
  let result: MeetingResult;
  let words: Word[];
  beforeAll(async () => {
    const fx = await standupFixture();
    const [stt, segments] = await Promise.all([
      new PocketsphinxStt({ modelDir: MODEL_DIR, chunkSeconds: 12, concurrency: 2, logger: log }).transcribe(fx.mixPath, {
        language: "en",
      }),
      new OfflineDiarizer({ ...OFFLINE_DIARIZER_DEFAULTS, logger: log }).diarize(fx.mixPath),
    ]);
    words = assignSpeakers(stt.words, segments);
    const wer = wordErrorRate(fx.truth.words, normaliseForWer(words.map((w) => w.text).join("")));
    console.log(`pocketsphinx WER with 12 s chunks: ${(wer.wer * 100).toFixed(1)}%`);
    expect(wer.wer).toBeLessThanOrEqual(0.2);
    expect(words.map((w) => w.start)).toEqual([...words.map((w) => w.start)].sort((a, b) => a - b));
    result = await summariseMeeting(words, new ExtractiveSummariser(log), ctx, { durationSeconds: fx.truth.duration });
  }, HEAVY);

  it("names the decisions the script contains", () => {
    const decisions = result.summary.actionItems!.decisions.map((d) => d.decision.toLowerCase());
    expect(decisions.some((d) => d.includes("march"))).toBe(true);
    expect(decisions.some((d) => d.includes("engineers") && d.includes("mobile team"))).toBe(true);
  });

  it("names the tasks with their owners matched to participants and their deadlines", () => {
    const steps = result.summary.actionItems!.next_steps;
    const budget = steps.find((s) => /budget report/i.test(s.task));
    expect(budget).toMatchObject({ assigned_to: "Alice", assigned_to_participant_id: "p-alice" });
    expect(budget!.deadline).toMatch(/friday/i);
    // "I will fix …" said by Bob: the owner is whoever spoke.
    expect(steps.find((s) => /payment problems/i.test(s.task))).toMatchObject({ assigned_to: "Bob", assigned_to_participant_id: "p-bob" });
    expect(steps.find((s) => /customer documentation/i.test(s.task))).toMatchObject({
      assigned_to: "Bob",
      assigned_to_participant_id: "p-bob",
    });
    for (const s of steps) expect(s.task).not.toMatch(/^(action|todo|task|next step)\b/i);
  });

  it("titles the meeting and its topic after what was discussed", () => {
    expect(result.topics.length).toBeGreaterThan(0);
    expect(result.title).toMatch(/payment|budget|launch|mobile|engineers|documentation/i);
    for (const t of result.topics) {
      expect(t.title.length).toBeGreaterThanOrEqual(8);
      expect(t.summary.length).toBeGreaterThan(0);
    }
  });

  it("writes a recap and a long summary that carry the decisions and tasks", () => {
    // Prose, not transcript lines: nobody's name as a label.
    expect(result.summary.shortSummary).toMatch(/^Alice and Bob discussed \S.{20,}/);
    expect(result.summary.shortSummary).not.toMatch(/(Alice|Bob): /);
    const long = result.summary.longSummary!;
    expect(long).toMatch(/^# Quick recap\n\n/);
    expect(long).toContain("# Summary");
    expect(long).toMatch(/budget report/i);
    expect(long).toMatch(/march/i);
    expect(long).toMatch(/Alice|Bob/);
  });

  it("is deterministic", async () => {
    const again = await summariseMeeting(words, new ExtractiveSummariser(), ctx, { durationSeconds: 30 });
    expect(again).toEqual(result);
  });
});

describe("rule-based decisions and tasks", () => {
  const names = ["Alice", "Bob"];
  it.each([
    ["we decided to move the launch to March", [{ kind: "decision", who: "team", what: "move the launch to march" }]],
    ["Alice will send the budget report by Friday", [{ kind: "task", who: "alice", what: "send the budget report by friday" }]],
    [
      "I agree. I'll fix the payment problems by next week.",
      [{ kind: "task", who: "speaker", what: "fix the payment problems by next week" }],
    ],
    ["let's go with the cheaper vendor", [{ kind: "decision", who: "team", what: "go with the cheaper vendor" }]],
    ["let's schedule a follow-up with design", [{ kind: "task", who: "team", what: "schedule a follow-up with design" }]],
    ["action item for Bob: book the venue", [{ kind: "task", who: "bob", what: "book the venue" }]],
    [
      "we agreed that support hours stay the same and Bob will tell the customers",
      [
        { kind: "decision", who: "team", what: "support hours stay the same" },
        { kind: "task", who: "bob", what: "tell the customers" },
      ],
    ],
    ["the weather will be nice", []],
    // Present tense decides too when said for everyone; said by one person it is an opinion.
    ["we agree to move the search box to the top", [{ kind: "decision", who: "team", what: "move the search box to the top" }]],
    ["I agree that the price is too high", []],
    // The recogniser's "too" for "to".
    ["we agreed too offer remote work for this position", [{ kind: "decision", who: "team", what: "offer remote work for this position" }]],
  ] as const)("%s", (sentence, expected) => {
    expect(findItems(sentence, names)).toEqual(expected);
  });
});

describe("tasks as a to-do list writes them", () => {
  it.each([
    ["schedule the interviews for next week", { task: "schedule the interviews", deadline: "next week" }],
    ["book the room for the team by friday", { task: "book the room for the team", deadline: "by friday" }],
    ["get three offers for a smaller office next months", { task: "get three offers for a smaller office", deadline: "next months" }],
  ])("takes the deadline out of %s and leaves no dangling preposition", (said, expected) => {
    expect(splitDeadline(said)).toEqual(expected);
  });

  it.each([
    ["preparing to offer for the hotel group", "prepare to offer for the hotel group"],
    ["sends the invoice", "send the invoice"],
    ["book the hotel", "book the hotel"],
    ["probably sign in the summer", "probably sign in the summer"],
  ])("starts %s with the verb's infinitive", (said, expected) => {
    expect(infinitiveFirst(said)).toBe(expected);
  });
});
