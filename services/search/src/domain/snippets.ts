// Search snippets and match counts (behaviour-search-notify-auth §1.6): literal, case-insensitive
// matches of the trimmed query, windows around them, long_summary first, then the WebVTT caption text.
// Positions are code points (as the reference's Python strings), so emoji do not shift windows.

export interface SnippetLimits {
  /** Characters kept before a match. */
  contextLength: number;
  /** Window length: a window ends `maxLength - contextLength` characters after the match start. */
  maxLength: number;
}
export const DEFAULT_LIMITS: SnippetLimits = { contextLength: 50, maxLength: 150 };

/**
 * A text prepared once for its scans. Positions are code points. Most texts have no astral
 * characters and lower-case to the same length, so code units are code points and the native
 * indexOf does the scan; other texts go through code-point arrays.
 */
export interface PreparedText {
  readonly length: number;
  /** Next occurrence of an already lower-cased needle at or after `from`, or -1. */
  indexOf(needle: PreparedNeedle, from: number): number;
  slice(start: number, end: number): string;
}
export interface PreparedNeedle {
  units: string;
  points: string[];
}

const ASTRAL = /[\uD800-\uDFFF]/;

/** Lower-case per code point, keeping the original where lower-casing would change the length (e.g. "İ"). */
function lowerPoints(text: string): string[] {
  return Array.from(text, (c) => {
    const l = c.toLowerCase();
    return l.length === c.length ? l : c;
  });
}

export function prepareText(text: string): PreparedText {
  const lower = text.toLowerCase();
  if (lower.length === text.length && !ASTRAL.test(text)) {
    return { length: text.length, indexOf: (n, from) => lower.indexOf(n.units, from), slice: (a, b) => text.slice(a, b) };
  }
  const chars = Array.from(text);
  const lowered = lowerPoints(text);
  return {
    length: chars.length,
    indexOf(n, from) {
      const m = n.points;
      outer: for (let i = from; i + m.length <= lowered.length; i++) {
        for (let j = 0; j < m.length; j++) if (lowered[i + j] !== m[j]) continue outer;
        return i;
      }
      return -1;
    },
    slice: (a, b) => chars.slice(a, b).join(""),
  };
}

export function prepareNeedle(needle: string): PreparedNeedle {
  const points = lowerPoints(needle);
  // The fast path compares with the whole-string lower-casing of the text: lower the needle the same way.
  const whole = needle.toLowerCase();
  return { units: whole.length === needle.length ? whole : points.join(""), points };
}

function matchesIn(p: PreparedText, needle: string): number[] {
  if (!needle) return [];
  const n = prepareNeedle(needle);
  const out: number[] = [];
  for (let i = p.indexOf(n, 0); i >= 0; i = p.indexOf(n, i + n.points.length)) out.push(i);
  return out;
}

/** Start positions of non-overlapping case-insensitive occurrences of `needle`, scanning left to right. */
export function findAllMatches(text: string, needle: string): number[] {
  if (!text || !needle) return [];
  return matchesIn(prepareText(text), needle);
}

export function countMatches(text: string, needle: string): number {
  return findAllMatches(text, needle).length;
}

export interface SnippetCandidate {
  /** The raw window, untrimmed. */
  raw: string;
  /** Window start (code points). */
  start: number;
  /** Window length in code points (for the overlap rule and the trailing "..."). */
  length: number;
  textLength: number;
}

export function createSnippet(text: PreparedText, matchPos: number, limits: SnippetLimits = DEFAULT_LIMITS): SnippetCandidate {
  const start = Math.max(0, matchPos - limits.contextLength);
  const end = Math.min(text.length, matchPos + limits.maxLength - limits.contextLength);
  return { raw: text.slice(start, end), start, length: end - start, textLength: text.length };
}

/** Trimmed window, "..." before when it does not start the text, after when it does not end it. */
export function snippetText(c: SnippetCandidate): string {
  let text = c.raw.trim();
  if (c.start > 0) text = `...${text}`;
  if (c.start + c.length < c.textLength) text = `${text}...`;
  return text;
}

/** Keep a window only if it starts at or after the end of the last kept one (later overlaps are dropped, not merged). */
export function filterNonOverlapping(candidates: Iterable<SnippetCandidate>, max = Infinity): string[] {
  const out: string[] = [];
  let lastEnd = 0;
  for (const c of candidates) {
    if (out.length >= max) break;
    const text = snippetText(c);
    if (c.start >= lastEnd && text) {
      out.push(text);
      lastEnd = c.start + c.length;
    }
  }
  return out;
}

/**
 * Up to `maxSnippets` windows around literal matches of `query`. A multi-word query that never
 * occurs verbatim falls back to its first word.
 */
export function generateSnippets(
  text: string | PreparedText,
  query: string,
  maxSnippets: number,
  limits: SnippetLimits = DEFAULT_LIMITS,
): string[] {
  const p = typeof text === "string" ? prepareText(text) : text;
  if (p.length === 0 || !query || maxSnippets <= 0) return [];
  const snippets = filterNonOverlapping(
    matchesIn(p, query).map((pos) => createSnippet(p, pos, limits)),
    maxSnippets,
  );
  if (snippets.length === 0 && query.includes(" ")) {
    const first = query.split(/\s+/).find((t) => t.length > 0);
    if (first && first !== query) return generateSnippets(p, first, maxSnippets, limits);
  }
  return snippets;
}

export interface SnippetSettings extends SnippetLimits {
  /** Snippets in all (reference: 3). */
  maxTotal: number;
  /** Of which from long_summary at most (LONG_SUMMARY_MAX_SNIPPETS, reference: 2). */
  maxFromSummary: number;
}
export const DEFAULT_SNIPPET_SETTINGS: SnippetSettings = { ...DEFAULT_LIMITS, maxTotal: 3, maxFromSummary: 2 };

/**
 * long_summary snippets first (at most maxFromSummary), then the WebVTT caption text fills the
 * remaining slots; the match count is the literal matches in both (the title is never counted).
 */
export function combineSnippets(
  sources: { longSummary: string | null; webvttText: string | null },
  query: string,
  settings: SnippetSettings = DEFAULT_SNIPPET_SETTINGS,
): { snippets: string[]; totalMatchCount: number } {
  const summary = prepareText(sources.longSummary ?? "");
  const webvtt = prepareText(sources.webvttText ?? "");
  const totalMatchCount = matchesIn(summary, query).length + matchesIn(webvtt, query).length;
  const fromSummary = generateSnippets(summary, query, Math.min(settings.maxFromSummary, settings.maxTotal), settings);
  const remaining = settings.maxTotal - fromSummary.length;
  const fromWebvtt = remaining > 0 ? generateSnippets(webvtt, query, remaining, settings) : [];
  return { snippets: [...fromSummary, ...fromWebvtt], totalMatchCount };
}
