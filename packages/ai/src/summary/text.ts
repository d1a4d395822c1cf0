// Transcript text as the summarisers see it: default segmentation (behaviour §7.1), speaker-named
// lines, title clean-up, and participant name matching for action-item owners.
import type { Participant, Word } from "../types";

export interface Segment {
  speaker: number;
  text: string;
  start: number;
  end: number;
}

/**
 * Default segmentation: a speaker change closes a segment; so does a word with `. ; : ? ! …` once
 * the segment is longer than 120 characters.
 */
export function wordsToSegments(words: readonly Word[]): Segment[] {
  const out: Segment[] = [];
  let cur: Segment | null = null;
  for (const w of words) {
    if (cur && cur.speaker !== w.speaker) {
      out.push(cur);
      cur = null;
    }
    if (!cur) cur = { speaker: w.speaker, text: w.text, start: w.start, end: w.end };
    else {
      cur.text += w.text;
      cur.end = w.end;
    }
    if (/[.;:?!…]/.test(w.text) && cur.text.length > 120) {
      out.push(cur);
      cur = null;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** The participant's name for a speaker label, else `Speaker <n>`. */
export function speakerName(speaker: number, participants: readonly Participant[]): string {
  return participants.find((p) => p.speaker === speaker)?.name ?? `Speaker ${speaker}`;
}

/** `"<name>: <segment>"` lines, the transcript form every summary prompt gets. */
export function transcriptText(words: readonly Word[], participants: readonly Participant[]): string {
  return wordsToSegments(words)
    .map((s) => `${speakerName(s.speaker, participants)}: ${s.text.trim()}`)
    .join("\n");
}

/**
 * Reference `clean_title`: strip surrounding quotes; capitalise the first word and every word
 * longer than 3 characters, lower-case the rest.
 */
export function cleanTitle(title: string): string {
  const words = title
    .trim()
    .replace(/^["'“”‘’]+|["'“”‘’]+$/g, "")
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return words.map((w, i) => (i === 0 || w.length > 3 ? w.charAt(0).toUpperCase() + w.slice(1).toLowerCase() : w.toLowerCase())).join(" ");
}

export interface MatchedParticipant {
  name: string;
  id: string | null;
}

/**
 * The recorded participant a name refers to: exact name (ignoring case), else a unique first-name
 * match ("alice" → "Alice Smith"). Null when nobody or several different people match.
 */
export function matchParticipant(name: string | null | undefined, participants: readonly Participant[]): MatchedParticipant | null {
  const n = name?.trim().toLowerCase();
  if (!n) return null;
  const exact = participants.filter((p) => p.name.trim().toLowerCase() === n);
  const first = exact.length ? exact : participants.filter((p) => p.name.trim().toLowerCase().split(/\s+/)[0] === n.split(/\s+/)[0]);
  // One person may hold several speaker labels (a diarizer that split their voice): still one match.
  const people = new Map(first.map((p) => [p.id ?? p.name, p]));
  if (people.size !== 1) return null;
  const [only] = people.values();
  return { name: only!.name, id: only!.id ?? null };
}

/** Leading labels models and people put before a task ("Action:", "TODO -", "Next step:"). */
export function stripTaskPrefix(task: string): string {
  const stripped = task
    .trim()
    .replace(/^[-*•]\s*/, "")
    .replace(/^(action items?|action|todo|to-do|to do|task|next steps?|follow[- ]up|ai)\s*[:\-–—]\s*/i, "")
    .trim();
  return stripped.charAt(0).toUpperCase() + stripped.slice(1);
}
