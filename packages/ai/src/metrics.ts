// Quality measures for the model backends: word error rate and diarization error rate. Pure; used
// by the tests and the benchmark to score backends against synthesised ground truth.

/** Lower case, punctuation dropped (apostrophes kept), split on whitespace. */
export function normaliseForWer(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
}

export interface WerResult {
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  referenceWords: number;
}

/** Levenshtein alignment over words; WER = (S + D + I) / N. */
export function wordErrorRate(reference: readonly string[], hypothesis: readonly string[]): WerResult {
  const n = reference.length;
  const m = hypothesis.length;
  // cost[j] and the operation counts of the best path to (i, j), one row at a time.
  type Cell = { c: number; s: number; d: number; i: number };
  let prev: Cell[] = Array.from({ length: m + 1 }, (_, j) => ({ c: j, s: 0, d: 0, i: j }));
  for (let i = 1; i <= n; i++) {
    const row: Cell[] = [{ c: i, s: 0, d: i, i: 0 }];
    for (let j = 1; j <= m; j++) {
      const same = reference[i - 1] === hypothesis[j - 1];
      const diag = prev[j - 1]!;
      const up = prev[j]!;
      const left = row[j - 1]!;
      const sub = { c: diag.c + (same ? 0 : 1), s: diag.s + (same ? 0 : 1), d: diag.d, i: diag.i };
      const del = { c: up.c + 1, s: up.s, d: up.d + 1, i: up.i };
      const ins = { c: left.c + 1, s: left.s, d: left.d, i: left.i + 1 };
      row.push(sub.c <= del.c && sub.c <= ins.c ? sub : del.c <= ins.c ? del : ins);
    }
    prev = row;
  }
  const end = prev[m]!;
  return { wer: n === 0 ? (m === 0 ? 0 : 1) : end.c / n, substitutions: end.s, deletions: end.d, insertions: end.i, referenceWords: n };
}

export interface LabelledSpan {
  start: number;
  end: number;
  speaker: number | string;
}

export interface DerResult {
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  /** Scored reference speech, seconds. */
  total: number;
  /** Hypothesis label → reference label of the optimal one-to-one mapping. */
  mapping: Map<string, string>;
}

/**
 * Diarization error rate as NIST md-eval scores it, single-speaker regions only: a `collar` (s)
 * around every reference boundary is not scored; DER = (missed + false alarm + confusion) / speech.
 * Speakers are mapped one-to-one to maximise overlap (exhaustive for up to 8 labels, else greedy).
 */
export function diarizationErrorRate(
  reference: readonly LabelledSpan[],
  hypothesis: readonly LabelledSpan[],
  opts: { collar?: number; step?: number } = {},
): DerResult {
  const collar = opts.collar ?? 0.25;
  const step = opts.step ?? 0.01;
  const endTime = Math.max(0, ...reference.map((r) => r.end), ...hypothesis.map((h) => h.end));
  const frames = Math.ceil(endTime / step);
  const refAt = labelFrames(reference, frames, step);
  const hypAt = labelFrames(hypothesis, frames, step);
  const scored = new Uint8Array(frames).fill(1);
  for (const r of reference) {
    for (const b of [r.start, r.end]) {
      const a = Math.max(0, Math.floor((b - collar) / step));
      const z = Math.min(frames, Math.ceil((b + collar) / step));
      scored.fill(0, a, z);
    }
  }
  const overlap = new Map<string, Map<string, number>>();
  for (let f = 0; f < frames; f++) {
    const r = refAt[f];
    const h = hypAt[f];
    if (!scored[f] || r === undefined || h === undefined) continue;
    const row = overlap.get(h) ?? new Map<string, number>();
    row.set(r, (row.get(r) ?? 0) + 1);
    overlap.set(h, row);
  }
  const mapping = bestMapping(overlap);
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  let total = 0;
  for (let f = 0; f < frames; f++) {
    if (!scored[f]) continue;
    const r = refAt[f];
    const h = hypAt[f];
    if (r !== undefined) total++;
    if (r !== undefined && h === undefined) missed++;
    else if (r === undefined && h !== undefined) falseAlarm++;
    else if (r !== undefined && h !== undefined && mapping.get(h) !== r) confusion++;
  }
  const sec = (x: number) => x * step;
  return {
    der: total === 0 ? 0 : (missed + falseAlarm + confusion) / total,
    missed: sec(missed),
    falseAlarm: sec(falseAlarm),
    confusion: sec(confusion),
    total: sec(total),
    mapping,
  };
}

/** Label of each frame; overlapping spans keep the later one (fixtures have no overlap). */
function labelFrames(spans: readonly LabelledSpan[], frames: number, step: number): (string | undefined)[] {
  const out = new Array<string | undefined>(frames).fill(undefined);
  for (const s of spans) {
    const a = Math.max(0, Math.round(s.start / step));
    const z = Math.min(frames, Math.round(s.end / step));
    for (let f = a; f < z; f++) out[f] = String(s.speaker);
  }
  return out;
}

function bestMapping(overlap: Map<string, Map<string, number>>): Map<string, string> {
  const hyps = [...overlap.keys()];
  const refs = [...new Set([...overlap.values()].flatMap((m) => [...m.keys()]))];
  const score = (h: string, r: string) => overlap.get(h)?.get(r) ?? 0;
  if (hyps.length <= 8 && refs.length <= 8) {
    let best = new Map<string, string>();
    let bestScore = -1;
    const used = new Set<string>();
    const current = new Map<string, string>();
    const visit = (i: number, acc: number) => {
      if (i === hyps.length) {
        if (acc > bestScore) {
          bestScore = acc;
          best = new Map(current);
        }
        return;
      }
      const h = hyps[i]!;
      visit(i + 1, acc); // leave h unmapped
      for (const r of refs) {
        if (used.has(r)) continue;
        used.add(r);
        current.set(h, r);
        visit(i + 1, acc + score(h, r));
        current.delete(h);
        used.delete(r);
      }
    };
    visit(0, 0);
    return best;
  }
  const pairs = hyps.flatMap((h) => refs.map((r) => ({ h, r, s: score(h, r) }))).sort((a, b) => b.s - a.s);
  const mapping = new Map<string, string>();
  const usedRefs = new Set<string>();
  for (const p of pairs) {
    if (mapping.has(p.h) || usedRefs.has(p.r) || p.s === 0) continue;
    mapping.set(p.h, p.r);
    usedRefs.add(p.r);
  }
  return mapping;
}

/**
 * Share of `text`'s words (normalised as for WER) that occur in `source`: how much of a summary or
 * title is drawn from what was said (1 = every word; an empty text scores 0).
 */
export function vocabularyShare(text: string, source: string): number {
  const words = normaliseForWer(text);
  if (words.length === 0) return 0;
  const known = new Set(normaliseForWer(source));
  return words.filter((w) => known.has(w)).length / words.length;
}
