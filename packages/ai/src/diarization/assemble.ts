// Diarization assembly (behaviour §7.4): give every transcript word the speaker of the diarization
// segment it falls in, after cleaning the segments (overlaps, empty segments, same-speaker runs).
import type { DiarizationSegment } from "../types";

export interface TimedText {
  text: string;
  start: number;
  end: number;
}

/**
 * Words with `speaker` set from `segments`. Empty diarization leaves each word's own speaker (or 0).
 * A word before a segment's start keeps the previous speaker when it continues the sentence (no
 * `.?!` before it and no capital letter), else takes the segment's speaker; words after the last
 * segment keep the last speaker assigned.
 */
export function assignSpeakers<W extends TimedText & { speaker?: number }>(
  words: readonly W[],
  segments: readonly DiarizationSegment[],
): (W & { speaker: number })[] {
  if (segments.length === 0) return words.map((w) => ({ ...w, speaker: w.speaker ?? 0 }));
  const cleaned = mergeSameSpeaker(dropWordless(removeOverlaps(segments), words));
  const out = words.map((w) => ({ ...w, speaker: 0 }));
  let wi = 0;
  let last = 0;
  for (const seg of cleaned) {
    while (wi < out.length && out[wi]!.start < seg.start) {
      const inner = wi > 0 && wi < out.length - 1;
      if (inner && continuesSentence(out[wi - 1]!.text, out[wi]!.text)) out[wi]!.speaker = last;
      else out[wi]!.speaker = last = seg.speaker;
      wi++;
    }
    while (wi < out.length && out[wi]!.start < seg.end) {
      out[wi]!.speaker = last = seg.speaker;
      wi++;
    }
  }
  for (; wi < out.length; wi++) out[wi]!.speaker = last;
  return out;
}

/** Where two segments overlap the shorter goes (the longer is the more reliable turn). */
export function removeOverlaps(segments: readonly DiarizationSegment[]): DiarizationSegment[] {
  const s = [...segments].sort((a, b) => a.start - b.start).map((x) => ({ ...x }));
  let i = 0;
  while (i < s.length - 1) {
    const a = s[i]!;
    const b = s[i + 1]!;
    if (a.end > b.start) s.splice(a.end - a.start > b.end - b.start ? i + 1 : i, 1);
    else i++;
  }
  return s;
}

function dropWordless(segments: DiarizationSegment[], words: readonly TimedText[]): DiarizationSegment[] {
  return segments.filter((d) => words.some((w) => (d.start <= w.start && w.start < d.end) || (d.start < w.end && w.end <= d.end)));
}

function mergeSameSpeaker(segments: DiarizationSegment[]): DiarizationSegment[] {
  const out: DiarizationSegment[] = [];
  for (const d of segments) {
    const prev = out[out.length - 1];
    if (prev && prev.speaker === d.speaker) prev.end = d.end;
    else out.push({ ...d });
  }
  return out;
}

/** Texts are compared trimmed: the reference's check ran on Whisper words, whose first character is a space. */
function continuesSentence(previous: string, word: string): boolean {
  const p = previous.trim();
  const w = word.trim();
  if (p && ".?!".includes(p[p.length - 1]!)) return false;
  if (w && w[0] !== w[0]!.toLowerCase()) return false;
  return true;
}
