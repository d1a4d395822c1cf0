import { describe, expect, it } from "vitest";
import { diarizationErrorRate, normaliseForWer, vocabularyShare, wordErrorRate } from "../src/metrics";

describe("word error rate", () => {
  it("counts substitutions, deletions and insertions against the reference length", () => {
    const r = wordErrorRate(normaliseForWer("the cat sat on the mat"), normaliseForWer("The cat sat on a mat today."));
    expect(r).toMatchObject({ substitutions: 1, deletions: 0, insertions: 1, referenceWords: 6 });
    expect(r.wer).toBeCloseTo(2 / 6);
    expect(wordErrorRate(["a", "b"], []).wer).toBe(1);
  });
});

describe("diarization error rate", () => {
  it("maps hypothesis labels to reference speakers and scores confusion, misses and false alarms", () => {
    const ref = [
      { start: 0, end: 10, speaker: "alice" },
      { start: 10, end: 20, speaker: "bob" },
    ];
    expect(
      diarizationErrorRate(
        ref,
        [
          { start: 0, end: 10, speaker: 1 },
          { start: 10, end: 20, speaker: 0 },
        ],
        { collar: 0 },
      ).der,
    ).toBeCloseTo(0);
    const r = diarizationErrorRate(
      ref,
      [
        { start: 0, end: 15, speaker: 0 },
        { start: 15, end: 18, speaker: 1 },
      ],
      { collar: 0 },
    );
    expect(r.confusion).toBeCloseTo(5);
    expect(r.missed).toBeCloseTo(2);
    expect(r.der).toBeCloseTo(7 / 20);
  });
});

describe("vocabularyShare", () => {
  it("is the share of a text's words that were said, case and punctuation aside", () => {
    expect(vocabularyShare("Payment problems, fixed!", "we fixed the payment problems today")).toBe(1);
    expect(vocabularyShare("Untitled meeting", "we fixed the payment problems")).toBe(0);
    expect(vocabularyShare("payment delay", "payment problems")).toBe(0.5);
    expect(vocabularyShare("", "anything")).toBe(0);
  });
});
