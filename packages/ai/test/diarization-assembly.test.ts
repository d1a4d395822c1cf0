import { describe, expect, it } from "vitest";
import { assignSpeakers } from "../src/diarization/assemble";

// Two topics' words as in the reference's scenarios: 0–0.5, 0.5–1 | 1–1.5, 1.5–2.
const words = [
  { text: " Word1", start: 0.0, end: 0.5 },
  { text: " word2.", start: 0.5, end: 1.0 },
  { text: " Word3", start: 1.0, end: 1.5 },
  { text: " word4.", start: 1.5, end: 2.0 },
];
const A = 0;
const B = 1;
const X = 7;

describe("diarization assembly", () => {
  it.each([
    [
      "no overlap",
      [
        [0, 1, A],
        [1, 2, B],
      ],
      [A, A, B, B],
    ],
    [
      "same speaker",
      [
        [0, 1, A],
        [1, 2, A],
      ],
      [A, A, A, A],
    ],
    [
      "overlap at 0.5 s keeps the longer segment",
      [
        [0, 1, A],
        [0.5, 2, B],
      ],
      [B, B, B, B],
    ],
    [
      "junk segment at 0.5 s for 0.2 s is removed",
      [
        [0, 1, A],
        [0.5, 0.7, B],
        [1, 2, B],
      ],
      [A, A, B, B],
    ],
    [
      "diarization starting late",
      [
        [0.5, 1, A],
        [1, 2, B],
      ],
      [A, A, B, B],
    ],
    [
      "diarization ending early",
      [
        [0, 1, A],
        [1, 1.5, B],
      ],
      [A, A, B, B],
    ],
    [
      "gap before the next speaker: a new sentence goes to the next speaker",
      [
        [0, 0.9, A],
        [1.5, 2, B],
      ],
      [A, A, B, B],
    ],
    [
      "gap after the previous speaker: a continued sentence stays with them",
      [
        [0, 0.5, A],
        [1, 2, B],
      ],
      [A, A, B, B],
    ],
    [
      "a segment without words is ignored",
      [
        [0, 1, A],
        [1, 2, B],
        [2, 3, X],
      ],
      [A, A, B, B],
    ],
  ] as const)("%s", (_name, segments, expected) => {
    const result = assignSpeakers(
      words,
      segments.map(([start, end, speaker]) => ({ start, end, speaker })),
    );
    expect(result.map((w) => w.speaker)).toEqual(expected);
  });

  it("leaves words unchanged without diarization", () => {
    const withSpeakers = words.map((w, i) => ({ ...w, speaker: i % 2 }));
    expect(assignSpeakers(withSpeakers, [])).toEqual(withSpeakers);
  });

  it("relabels words by segment and keeps every word", () => {
    const eleven = Array.from({ length: 11 }, (_, i) => ({ text: ` w${i}`, start: (i * 35) / 100, end: (i * 35 + 30) / 100 }));
    const result = assignSpeakers(eleven, [
      { start: 0, end: 2.1, speaker: 0 },
      { start: 2.1, end: 3.9, speaker: 1 },
    ]);
    expect(result).toHaveLength(11);
    expect(result.map((w) => w.speaker)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
  });
});
