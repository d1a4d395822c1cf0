// How a transcript's words become text: segmentation, the four GET formats, WebVTT (named and the
// stored `webvtt` column), the topic projection and WebVTT's plain caption text. Pure functions shared
// by the read model (projection), the write side (transcription: `webvtt` column, per-topic WebVTT of
// the webhook) and the notifier (e-mail text), so every output agrees (api.md §3, behaviour §7.1–7.2).
import type { GetTranscriptTopic, TranscriptFormat, TranscriptSegment, Word } from "./api";

export interface Segment {
  text: string;
  start: number;
  end: number;
  speaker: number;
}
/** What a speaker name is looked up in: the transcript's participants. */
export interface SpeakerLabel {
  speaker: number | null;
  name: string;
}
/** What rendering needs of a stored topic. */
export interface TopicWords {
  words: readonly Word[];
}
export interface StoredTopicLike extends TopicWords {
  id: string;
  title: string;
  summary: string;
  timestamp: number;
  transcript: string | null;
}

/** Non-multitrack: close a segment after punctuation once it is longer than this (code points). */
export const MAX_SEGMENT_CHARS = 120;
/** Multitrack: close a speaker's segment once it reaches this length without a sentence end. */
export const MAX_SENTENCE_SEGMENT_CHARS = 1000;
const PUNCTUATION = /[.;:?!…]/;
const SENTENCE_END = /[.?!…]$/;

/** Lengths count code points, as the reference (Python) does, so emoji do not close segments early. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Default segmentation (single track, the `webvtt` column): a speaker change closes the segment; a
 * word carrying punctuation closes it once the text is longer than MAX_SEGMENT_CHARS.
 */
export function wordsToSegments(words: readonly Word[]): Segment[] {
  const segments: Segment[] = [];
  let current: (Segment & { length: number }) | null = null;
  for (const w of words) {
    if (current === null || w.speaker !== current.speaker) {
      if (current) segments.push(strip(current));
      current = { text: w.text, start: w.start, end: w.end, speaker: w.speaker, length: codePoints(w.text) };
      continue;
    }
    current.text += w.text;
    current.length += codePoints(w.text);
    current.end = w.end;
    if (PUNCTUATION.test(w.text) && current.length > MAX_SEGMENT_CHARS) {
      segments.push(strip(current));
      current = null;
    }
  }
  if (current) segments.push(strip(current));
  return segments;
}

/**
 * Multitrack segmentation: every track is one speaker and their words interleave in time, so group
 * the words by speaker (first-appearance order), cut each speaker's words at sentence ends (or at
 * MAX_SENTENCE_SEGMENT_CHARS), then order all segments by start (stable).
 */
export function wordsToSegmentsBySentence(words: readonly Word[]): Segment[] {
  const bySpeaker = new Map<number, Word[]>();
  for (const w of words) {
    const list = bySpeaker.get(w.speaker);
    if (list) list.push(w);
    else bySpeaker.set(w.speaker, [w]);
  }
  const segments: Segment[] = [];
  for (const [speaker, list] of bySpeaker) {
    let text = "";
    let length = 0;
    let start: number | null = null;
    let end = 0;
    for (const w of list) {
      start ??= w.start;
      text += w.text;
      length += codePoints(w.text);
      end = w.end;
      if (SENTENCE_END.test(w.text.trim()) || length >= MAX_SENTENCE_SEGMENT_CHARS) {
        segments.push({ text, start, end, speaker });
        text = "";
        length = 0;
        start = null;
      }
    }
    if (text && start !== null) segments.push({ text, start, end, speaker });
  }
  // Array.prototype.sort is stable, like Python's list.sort.
  return segments.sort((a, b) => a.start - b.start);
}

function strip(s: Segment & { length?: number }): Segment {
  return { text: s.text, start: s.start, end: s.end, speaker: s.speaker };
}

export function segmentWords(words: readonly Word[], multitrack: boolean): Segment[] {
  return multitrack ? wordsToSegmentsBySentence(words) : wordsToSegments(words);
}

/** The first participant holding the speaker label names it, else "Speaker <n>". */
export function speakerName(speaker: number, participants: readonly SpeakerLabel[] | null | undefined): string {
  const p = participants?.find((x) => x.speaker === speaker);
  return p ? p.name : `Speaker ${speaker}`;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** `[MM:SS]` body: whole minutes (may exceed 59) and whole seconds. */
export function formatMmss(seconds: number): string {
  return `${pad2(Math.floor(seconds / 60))}:${pad2(Math.floor(seconds % 60))}`;
}

/** WebVTT cue time `HH:MM:SS.mmm`, milliseconds truncated (the reference's float arithmetic). */
export function formatVttTime(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const secs = Math.floor(seconds % 60);
  const millis = Math.floor((seconds % 1) * 1000);
  return `${pad2(hours)}:${pad2(minutes)}:${pad2(secs)}.${String(millis).padStart(3, "0")}`;
}

export interface Cue {
  start: number;
  end: number;
  text: string;
}

const WEBVTT_HEADER = "WEBVTT\n";

/** One cue as a document holds it: a blank line, the timing line and the text, trailing newline. */
function cueBlock(c: Cue): string {
  return `\n${formatVttTime(c.start)} --> ${formatVttTime(c.end)}\n${c.text}\n`;
}

/** `WEBVTT`, then the cues. */
export function webvttDocument(cues: readonly Cue[]): string {
  let out = WEBVTT_HEADER;
  for (const c of cues) out += cueBlock(c);
  return out;
}

/**
 * wordsToWebvtt in pieces: the header, then one piece per cue; joined they are wordsToWebvtt(words).
 * transcript.completed finds a topic's pieces in the transcript's WebVTT (completed-webvtt.ts).
 */
export function wordsToWebvttPieces(words: readonly Word[]): string[] {
  const cues = wordsToSegments(words).map((s) => cueBlock({ start: s.start, end: s.end, text: `<v Speaker${s.speaker}>${s.text.trim()}` }));
  return [WEBVTT_HEADER, ...cues];
}

/** WebVTT of words with default segmentation and `<v Speaker<n>>` voices (the stored column's cues). */
export function wordsToWebvtt(words: readonly Word[]): string {
  return wordsToWebvttPieces(words).join("");
}

export class WordsOutOfSequenceError extends Error {
  constructor(a: Word, b: Word) {
    super(`Words are not in sequence: ${a.text} and ${b.text} are not consecutive: ${a.start} > ${b.start}`);
    this.name = "WordsOutOfSequenceError";
  }
}

/**
 * The transcript's `webvtt` column: every topic's words in order (they must not go back in time:
 * a topic list that does is a bug upstream, refused rather than rendered out of order).
 */
export function topicsToWebvtt(topics: readonly TopicWords[]): string {
  const words = topics.flatMap((t) => t.words);
  for (let i = 0; i + 1 < words.length; i++) {
    if (words[i]!.start > words[i + 1]!.start) throw new WordsOutOfSequenceError(words[i]!, words[i + 1]!);
  }
  return wordsToWebvtt(words);
}

interface NamedSegment extends Segment {
  speaker_name: string;
}

/** Segments per topic (never across topics), topics without words skipped, names resolved. */
function namedSegments(topics: readonly TopicWords[], participants: readonly SpeakerLabel[] | null, multitrack: boolean): NamedSegment[] {
  const out: NamedSegment[] = [];
  for (const t of topics) {
    if (t.words.length === 0) continue;
    for (const s of segmentWords(t.words, multitrack)) {
      out.push({ ...s, text: s.text.trim(), speaker_name: speakerName(s.speaker, participants) });
    }
  }
  return out;
}

/** `text`: lines `<name>: <text>`. */
export function transcriptToText(topics: readonly TopicWords[], participants: readonly SpeakerLabel[] | null, multitrack = false): string {
  return namedSegments(topics, participants, multitrack)
    .map((s) => `${s.speaker_name}: ${s.text}`)
    .join("\n");
}

/** `text-timestamped`: lines `[MM:SS] <name>: <text>`. */
export function transcriptToTimestampedText(
  topics: readonly TopicWords[],
  participants: readonly SpeakerLabel[] | null,
  multitrack = false,
): string {
  return namedSegments(topics, participants, multitrack)
    .map((s) => `[${formatMmss(s.start)}] ${s.speaker_name}: ${s.text}`)
    .join("\n");
}

/** `webvtt-named`: cues voiced with participant names. */
export function transcriptToWebvttNamed(
  topics: readonly TopicWords[],
  participants: readonly SpeakerLabel[] | null,
  multitrack = false,
): string {
  return webvttDocument(
    namedSegments(topics, participants, multitrack).map((s) => ({ start: s.start, end: s.end, text: `<v ${s.speaker_name}>${s.text}` })),
  );
}

/** `json`: `TranscriptSegment[]`. */
export function transcriptToJsonSegments(
  topics: readonly TopicWords[],
  participants: readonly SpeakerLabel[] | null,
  multitrack = false,
): TranscriptSegment[] {
  return namedSegments(topics, participants, multitrack).map((s) => ({
    speaker: s.speaker,
    speaker_name: s.speaker_name,
    text: s.text,
    start: s.start,
    end: s.end,
  }));
}

export type RenderedTranscript =
  | { transcript_format: "text" | "text-timestamped" | "webvtt-named"; transcript: string }
  | { transcript_format: "json"; transcript: TranscriptSegment[] };

/** The `transcript` field of GET /v1/transcripts/{id} for a format. */
export function renderTranscript(
  format: TranscriptFormat,
  topics: readonly TopicWords[],
  participants: readonly SpeakerLabel[] | null,
  multitrack: boolean,
): RenderedTranscript {
  switch (format) {
    case "text":
      return { transcript_format: format, transcript: transcriptToText(topics, participants, multitrack) };
    case "text-timestamped":
      return { transcript_format: format, transcript: transcriptToTimestampedText(topics, participants, multitrack) };
    case "webvtt-named":
      return { transcript_format: format, transcript: transcriptToWebvttNamed(topics, participants, multitrack) };
    case "json":
      return { transcript_format: format, transcript: transcriptToJsonSegments(topics, participants, multitrack) };
  }
}

/**
 * GetTranscriptTopic (api.md §3.2). With words: concatenated text, duration from the words and
 * multitrack-aware segments (text untrimmed). Without (legacy): the stored text as one segment.
 */
export function topicView(topic: StoredTopicLike, multitrack: boolean): GetTranscriptTopic {
  const base = { id: topic.id, title: topic.title, summary: topic.summary, timestamp: topic.timestamp };
  if (topic.words.length === 0) {
    const transcript = topic.transcript ?? "";
    return { ...base, duration: null, transcript, segments: [{ text: transcript, start: topic.timestamp, speaker: 0 }] };
  }
  return {
    ...base,
    transcript: topic.words.map((w) => w.text).join(""),
    duration: topic.words[topic.words.length - 1]!.end - topic.words[0]!.start,
    segments: segmentWords(topic.words, multitrack).map((s) => ({ text: s.text, start: s.start, speaker: s.speaker })),
  };
}

/** Runs of consecutive words with the same speaker, in order (a speaker may have several runs). */
export function wordsPerSpeaker(words: readonly Word[]): { speaker: number; words: Word[] }[] {
  const runs: { speaker: number; words: Word[] }[] = [];
  for (const w of words) {
    const last = runs[runs.length - 1];
    if (last && last.speaker === w.speaker) last.words.push(w);
    else runs.push({ speaker: w.speaker, words: [w] });
  }
  return runs;
}

/**
 * The plain caption text of a WebVTT document: each cue's text with `<…>` tags (voices) removed,
 * empty cues dropped, cues joined by one space; no timings. Not WebVTT (no `WEBVTT` header) → "".
 * Used for the search vector (weight C) and search snippets.
 */
export function webvttPlainText(webvtt: string | null | undefined): string {
  if (!webvtt) return "";
  const lines = webvtt
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  if (!/^WEBVTT(?:$|[ \t])/.test(lines[0] ?? "")) return "";
  const texts: string[] = [];
  let i = 1;
  // The header block runs to the first blank line; its lines are never captions.
  while (i < lines.length && lines[i]!.trim() !== "") i++;
  while (i < lines.length) {
    while (i < lines.length && lines[i]!.trim() === "") i++;
    const block: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "") block.push(lines[i++]!);
    const timing = block.findIndex((l) => l.includes("-->"));
    if (timing < 0) continue; // NOTE, STYLE, REGION or stray text: not a cue
    const text = block
      .slice(timing + 1)
      .join("\n")
      .replace(/<[^>]*>/g, "");
    if (text) texts.push(text);
  }
  return texts.join(" ");
}
