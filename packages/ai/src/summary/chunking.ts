// Topic chunking (behaviour §7.5) and the subject cap (§7.7): how a transcript is cut into the
// excerpts that become topics. Pure.
import type { Word } from "../types";

/** Words per topic chunk: aims at ~0.833·minutes^0.723 topics (2..50), chunks of 375..1500 words. */
export function computeTopicChunkSize(durationSeconds: number, totalWords: number): number {
  if (durationSeconds <= 0 || totalWords <= 0) return 375;
  const minutes = durationSeconds / 60;
  const targetTopics = Math.round(Math.min(50, Math.max(2, 0.833 * minutes ** 0.723)));
  return Math.min(1500, Math.max(375, Math.floor(totalWords / targetTopics)));
}

/** Most subjects a summary should have for a recording of this length (multitrack rule; ≤ 6). */
export function computeMaxSubjects(durationSeconds: number): number {
  if (durationSeconds <= 300) return 1;
  if (durationSeconds <= 900) return 2;
  if (durationSeconds <= 1800) return 3;
  if (durationSeconds <= 2700) return 4;
  if (durationSeconds <= 3600) return 5;
  return 6;
}

/** Reference MIN_TRANSCRIPT_LENGTH: a topic needs at least this many characters of text. */
export const MIN_TRANSCRIPT_LENGTH = 750;

/**
 * The word groups that become topics. Words are cut into chunks of `computeTopicChunkSize` words;
 * with `accumulate` (file and live pipelines) a chunk whose text is not longer than
 * `minTranscriptLength` is merged into the next, and the remainder is flushed at the end. Without
 * it (multitrack) every chunk is a topic.
 */
export function topicChunks(
  words: readonly Word[],
  opts: { durationSeconds?: number; accumulate?: boolean; minTranscriptLength?: number } = {},
): Word[][] {
  if (words.length === 0) return [];
  const duration = opts.durationSeconds ?? words[words.length - 1]!.end - words[0]!.start;
  const size = computeTopicChunkSize(duration, words.length);
  const min = opts.minTranscriptLength ?? MIN_TRANSCRIPT_LENGTH;
  const out: Word[][] = [];
  let pending: Word[] = [];
  for (let i = 0; i < words.length; i += size) {
    pending.push(...words.slice(i, i + size));
    if (opts.accumulate === false || pending.reduce((n, w) => n + w.text.length, 0) > min) {
      out.push(pending);
      pending = [];
    }
  }
  if (pending.length) out.push(pending);
  return out;
}
