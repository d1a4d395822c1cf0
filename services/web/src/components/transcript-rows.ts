// The transcript's words as rows of a virtual list: a heading per topic, then one row per run of one
// speaker's words (long runs are cut, so no row is taller than a few lines and measuring stays cheap).
import type { Schemas } from "@scribe/client";

export type Topic = Schemas["GetTranscriptTopicWithWords"];
export type Word = Schemas["Word"];

/** At most this many words in one row: a 10-minute monologue is still many small rows. */
const WORDS_PER_ROW = 60;

export type Row =
  | { kind: "topic"; key: string; topic: Topic }
  | { kind: "turn"; key: string; speaker: number; words: Word[]; first: number; continued: boolean };

export interface TranscriptRows {
  rows: Row[];
  /** Every word in reading order (the index a turn row's `first` counts in). */
  words: Word[];
  /** For each word, the row that shows it. */
  rowOfWord: Int32Array;
}

export function buildRows(topics: Topic[]): TranscriptRows {
  const rows: Row[] = [];
  const words: Word[] = [];
  const rowIndexes: number[] = [];
  for (const topic of topics) {
    rows.push({ kind: "topic", key: `topic-${topic.id}`, topic });
    let current: Extract<Row, { kind: "turn" }> | null = null;
    for (const word of topic.words) {
      if (!current || current.speaker !== word.speaker || current.words.length >= WORDS_PER_ROW) {
        const continued: boolean = current !== null && current.speaker === word.speaker;
        current = { kind: "turn", key: `w-${words.length}`, speaker: word.speaker, words: [], first: words.length, continued };
        rows.push(current);
      }
      current.words.push(word);
      words.push(word);
      rowIndexes.push(rows.length - 1);
    }
  }
  return { rows, words, rowOfWord: Int32Array.from(rowIndexes) };
}

/** The index of the word being spoken at `time` (the last one started), or -1 before the first. */
export function wordAt(words: Word[], time: number): number {
  let lo = 0;
  let hi = words.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid]!.start <= time) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Every speaker number that has words, and every participant's, in ascending order. */
export function speakersOf(words: Word[], participants: { speaker: number | null }[]): number[] {
  const all = new Set<number>();
  for (const w of words) all.add(w.speaker);
  for (const p of participants) if (p.speaker != null) all.add(p.speaker);
  return [...all].sort((a, b) => a - b);
}
