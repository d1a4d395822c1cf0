// Snippet rules against the reference scenarios (tests/test_search_snippets.py, test_search_long_summary.py).
import { webvttPlainText } from "@scribe/contracts";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SNIPPET_SETTINGS,
  combineSnippets,
  createSnippet,
  filterNonOverlapping,
  findAllMatches,
  generateSnippets,
  prepareText,
  snippetText,
} from "../src/domain/snippets";

const gen = (text: string, q: string, max = 3) => generateSnippets(text, q, max);
const combine = (summary: string | null, webvtt: string | null, q: string, maxTotal = 3) =>
  combineSnippets({ longSummary: summary, webvttText: webvttPlainText(webvtt) }, q, { ...DEFAULT_SNIPPET_SETTINGS, maxTotal });

describe("matches", () => {
  it("finds non-overlapping case-insensitive positions", () => {
    const text = "Python is great. Python is powerful. I love Python.";
    expect(findAllMatches(text, "Python")).toEqual([0, 17, 44]);
    expect(findAllMatches(text, "python")).toEqual([0, 17, 44]);
    expect(findAllMatches(text, "Ruby")).toEqual([]);
    expect(findAllMatches("", "test")).toEqual([]);
    expect(findAllMatches("test", "")).toEqual([]);
    expect(findAllMatches("aaaa", "aa")).toEqual([0, 2]);
  });

  it("counts in code points, so astral characters do not shift positions", () => {
    expect(findAllMatches("😀 café", "café")).toEqual([2]);
    expect(findAllMatches("😀 CAFÉ 😀 café", "Café")).toEqual([2, 9]);
    const emoji = `${"😀".repeat(60)}needle${"😀".repeat(120)}`;
    expect(generateSnippets(emoji, "needle", 1)).toEqual([`...${"😀".repeat(50)}needle${"😀".repeat(94)}...`]);
  });
});

describe("snippet windows", () => {
  it("keeps 50 characters before the match and ends 100 after it, with ellipses where cut", () => {
    const text = "This is a long text with the word Python in the middle and more text after.";
    const c = createSnippet(prepareText(text), 35);
    expect(snippetText(c)).toContain("Python");
    expect(c.start).toBe(0);
    const long = prepareText("A".repeat(200));
    const mid = createSnippet(long, 100, { contextLength: 50, maxLength: 50 });
    expect(snippetText(mid).startsWith("...")).toBe(true);
    expect(snippetText(mid).endsWith("...")).toBe(true);
    expect(snippetText(createSnippet(prepareText("short text"), 0))).toBe("short text");
  });

  it("drops a window that starts before the end of the last kept one", () => {
    const cand = (raw: string, start: number) => ({ raw, start, length: Array.from(raw).length, textLength: 100 });
    expect(
      filterNonOverlapping([cand("First snippet", 0), cand("Overlapping", 10), cand("Third snippet", 40), cand("Fourth snippet", 65)]),
    ).toEqual(["First snippet...", "...Third snippet...", "...Fourth snippet..."]);
    expect(filterNonOverlapping([])).toEqual([]);
  });
});

describe("generating snippets", () => {
  it("makes a snippet per distant match, each containing it", () => {
    const sep = " This is filler text. ".repeat(20);
    const text = [
      "Python is great for machine learning.",
      "Many companies use Python for data science.",
      "Python has excellent libraries.",
      "The Python community.",
    ].join(sep);
    const s = gen(text, "Python");
    expect(s.length).toBeGreaterThanOrEqual(2);
    for (const x of s) expect(x.toLowerCase()).toContain("python");
  });

  it("makes one snippet for one phrase hit and none when neither phrase nor first word occurs", () => {
    expect(gen("This document discusses artificial intelligence and its applications.", "artificial intelligence")).toHaveLength(1);
    expect(gen("This is some random text without the search term.", "machine learning")).toEqual([]);
  });

  it("matches case-insensitively", () => {
    const text = `MACHINE LEARNING is important. ${"It requires data. ".repeat(5)}Machine Learning rocks. ${"Deep learning. ".repeat(5)}Finally, machine learning.`;
    const s = gen(text, "machine learning");
    expect(s.length).toBeGreaterThanOrEqual(2);
    for (const x of s) expect(x.toLowerCase()).toContain("machine learning");
  });

  it("falls back to the first word when a multi-word query never occurs verbatim", () => {
    const s = gen("We use machine intelligence for processing.", "machine learning");
    expect(s).toHaveLength(1);
    expect(s[0]!.toLowerCase()).toContain("machine");
    expect(gen("Machine learning is amazing.", "machine vision").some((x) => x.toLowerCase().includes("machine"))).toBe(true);
  });

  it("uses only the verbatim phrase when it occurs, with 50 characters of left context", () => {
    const text = `This is a sample transcript where user Alice is talking.
        Later in the conversation, jordan mentions something important.
        The user jordan collaboration was successful.
        Another user named Bob joins the discussion.`;
    expect(gen(text, "user")).toHaveLength(2);
    const s = gen(text, "user jordan");
    expect(s).toHaveLength(1);
    expect(s[0]!.toLowerCase()).toContain("user jordan");
    expect(s[0]!.toLowerCase()).toContain("jordan mentions");
    expect(s[0]!.toLowerCase()).not.toContain("alice");
    const ab = gen(
      "The alpha version was released.\n        Beta testing started yesterday.\n        The alpha beta integration is complete.",
      "alpha beta",
    );
    expect(ab).toHaveLength(1);
    expect(ab[0]!.toLowerCase()).not.toContain("version");
  });

  it("finds a phrase at the very start and the very end of the text", () => {
    expect(gen("user jordan started the meeting. Other content here.", "user jordan")).toHaveLength(1);
    expect(gen("Other content here. The meeting ended with user jordan", "user jordan")).toHaveLength(1);
  });

  it("puts an ellipsis on a window cut out of a longer text", () => {
    const s = gen(`${"a ".repeat(100)}TARGET_WORD special content here${" b".repeat(100)}`, "TARGET_WORD");
    expect(s).toHaveLength(1);
    expect(s[0]).toContain("...");
  });

  it("never returns overlapping or duplicate snippets", () => {
    const s = gen("test test test word".repeat(10), "test");
    expect(s.length).toBeLessThanOrEqual(3);
    expect(new Set(s).size).toBe(s.length);
  });

  it("honours the snippet limit and keeps every snippet at most 156 characters", () => {
    const text = `Python is amazing${" filler ".repeat(50)}`.repeat(10);
    expect([1, 2, 5].map((n) => gen(text, "Python", n).length)).toEqual([1, 2, 5]);
    for (const x of gen("word ".repeat(200), "word")) expect(x.length).toBeLessThanOrEqual(156);
  });

  it("returns nothing for empty inputs or a query longer than the text; matches special characters and accents", () => {
    expect(gen("", "search")).toEqual([]);
    expect(gen("text", "")).toEqual([]);
    expect(gen("Some text", "a".repeat(100))).toEqual([]);
    expect(gen("Test with special: @#$%^&*() characters", "@#$%").length).toBeGreaterThan(0);
    expect(gen("Unicode test: café, naïve, 日本語", "café")[0]).toContain("café");
  });

  it("builds snippets from WebVTT caption text without cue syntax", () => {
    const vtt = `WEBVTT\n\n00:00:00.000 --> 00:00:10.000\n<v Speaker0>Let's discuss machine learning applications.\n\n00:00:10.000 --> 00:00:20.000\n<v Speaker1>${"Various industries are adopting new technologies. ".repeat(10)}\n\n00:00:20.000 --> 00:00:30.000\n<v Speaker2>Machine learning is revolutionizing healthcare.\n`;
    const s = gen(webvttPlainText(vtt), "machine learning");
    expect(s.length).toBeGreaterThanOrEqual(1);
    for (const x of s) {
      expect(x.toLowerCase()).toContain("machine learning");
      expect(x).not.toMatch(/<v Speaker|00:00|-->/);
    }
  });
});

describe("combining long_summary and WebVTT", () => {
  const vtt = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nLearn Python programming\n\n00:00:02.000 --> 00:00:04.000\nPython is powerful";

  it("takes summary snippets first, then fills up to 3 from the WebVTT text", () => {
    const summary = `Robotics is the topic. ${"Filler words to push matches apart. ".repeat(8)}More robotics here. ${"x ".repeat(80)}robotics again.`;
    const r = combine(summary, "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nWe talked about robotics today", "robotics");
    expect(r.snippets).toHaveLength(3);
    expect(r.snippets[0]!.toLowerCase()).toContain("robotics");
    expect(r.snippets[2]).toBe("We talked about robotics today");
    expect(r.totalMatchCount).toBe(4);
  });

  it("counts matches in both sources", () => {
    expect(combine("Python is a great programming language.", vtt, "Python").totalMatchCount).toBe(3);
    expect(combine("Python is a great programming language.", null, "Python").totalMatchCount).toBe(1);
    expect(combine(null, vtt, "Python")).toMatchObject({ totalMatchCount: 2 });
    const data = combine(
      "data science uses data analysis and data mining techniques",
      "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nBig data processing\n\n00:00:02.000 --> 00:00:04.000\ndata visualization and data storage",
      "data",
    );
    expect(data.totalMatchCount).toBe(6);
    expect(data.snippets.length).toBeLessThanOrEqual(3);
  });

  it("caps summary snippets at 2 and everything at the total", () => {
    expect(combine("Python ".repeat(20), null, "Python").snippets.length).toBeLessThanOrEqual(2);
    const r = combine("Python ".repeat(10), vtt, "Python", 2);
    expect(r.snippets).toHaveLength(2);
    expect(r.totalMatchCount).toBeGreaterThanOrEqual(10);
  });

  it("has no snippets and no count for a title-only match", () => {
    expect(combine(null, null, "empty")).toEqual({ snippets: [], totalMatchCount: 0 });
  });
});
