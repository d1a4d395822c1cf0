// The text half of both pipelines: topics (stored with the WebVTT through replaceTopics), the
// title (only written when the transcript has none), the summaries and action items. Every
// result is written through the port, with its realtime event (§2.1), in the order of §7.7.
import { detectTopics, type Participant, type SummaryContext, type Word } from "@scribe/ai";
import type { StoredParticipant, TopicRecord } from "@scribe/contracts";
import type { PipelineDeps } from "../deps";
import type { PipelineInput, TranscriptPort } from "../port";
import { stableId } from "./ids";

/**
 * Participants as stored on the transcript: one per track (speaker = track index) for multitrack,
 * then everyone else recorded for the meeting (no speaker label), without repeating a name.
 */
export function participantsOf(input: PipelineInput): StoredParticipant[] {
  const out: StoredParticipant[] = input.tracks.map((t, i) => ({
    id: t.participant_id ?? stableId(input.transcript_id, "speaker", i),
    speaker: i,
    name: t.participant_name?.trim() || `Speaker ${i}`,
    user_id: t.user_id,
  }));
  const seen = new Set(out.map((p) => p.name.toLowerCase()));
  for (const p of input.participants) {
    const name = p.name.trim();
    if (!name || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push({ id: p.participant_id ?? stableId(input.transcript_id, "participant", name), speaker: null, name, user_id: p.user_id });
  }
  return out;
}

/** What the summariser is told: the recorded names go into the summaries (§7.7). */
export function summaryContext(input: PipelineInput): SummaryContext {
  const participants: Participant[] = participantsOf(input).map((p) => ({ id: p.id, name: p.name, speaker: p.speaker }));
  return { participants, sourceLanguage: input.source_language, targetLanguage: input.target_language };
}

export interface TopicsOutput {
  titles: string[];
  count: number;
}

/** §7.5: chunked topic detection; file pipelines accumulate short chunks, multitrack does not. */
export async function storeTopics(
  deps: PipelineDeps,
  port: TranscriptPort,
  input: PipelineInput,
  runId: string,
  words: Word[],
  opts: { accumulate: boolean; durationSeconds?: number },
): Promise<TopicsOutput> {
  const detected = await detectTopics(words, deps.ai.summariser, summaryContext(input), {
    accumulate: opts.accumulate,
    ...(opts.durationSeconds && opts.durationSeconds > 0 ? { durationSeconds: opts.durationSeconds } : {}),
  });
  const topics: TopicRecord[] = detected.map((t, i) => ({
    id: stableId(runId, "topic", i),
    title: t.title,
    summary: t.summary,
    timestamp: Math.max(0, t.timestamp),
    // The API computes a topic's duration from its words (§1.3): pipelines leave it 0.
    duration: 0,
    transcript: t.transcript,
    words: t.words.map((w) => ({ text: w.text, start: w.start, end: w.end, speaker: w.speaker })),
  }));
  await port.replaceTopics(input.transcript_id, runId, topics);
  for (const t of topics) await port.appendEvent(input.transcript_id, runId, "TOPIC", t as unknown as Record<string, unknown>);
  return { titles: topics.map((t) => t.title), count: topics.length };
}

/** §7.6: a title from the topic titles; stored only when the transcript has none, announced always. */
export async function storeTitle(
  deps: PipelineDeps,
  port: TranscriptPort,
  input: PipelineInput,
  runId: string,
  titles: string[],
): Promise<string | null> {
  if (titles.length === 0) return null;
  const title = await deps.ai.summariser.title(titles, summaryContext(input));
  if (!title) return null;
  const current = await port.load(input.transcript_id);
  if (current && !current.title) await port.update(input.transcript_id, runId, { title });
  await port.appendEvent(input.transcript_id, runId, "FINAL_TITLE", { title });
  return title;
}

export interface SummariesOutput {
  short: boolean;
  long: boolean;
  actionItems: boolean;
}

/**
 * §7.7: recap (short), markdown (long) and action items. A summariser that fails on action items
 * returns null for them: they are then left as they were (null for a first run), not failed.
 */
export async function storeSummaries(
  deps: PipelineDeps,
  port: TranscriptPort,
  input: PipelineInput,
  runId: string,
  words: Word[],
  topicCount: number,
  durationSeconds: number,
): Promise<SummariesOutput> {
  if (topicCount === 0 || words.length === 0) return { short: false, long: false, actionItems: false };
  const s = await deps.ai.summariser.summary({
    words,
    ctx: summaryContext(input),
    ...(durationSeconds > 0 ? { durationSeconds } : {}),
  });
  const id = input.transcript_id;
  await port.update(id, runId, {
    ...(s.shortSummary !== null ? { short_summary: s.shortSummary } : {}),
    ...(s.longSummary !== null ? { long_summary: s.longSummary } : {}),
    ...(s.actionItems !== null ? { action_items: s.actionItems } : {}),
  });
  if (s.shortSummary !== null) await port.appendEvent(id, runId, "FINAL_SHORT_SUMMARY", { short_summary: s.shortSummary });
  if (s.actionItems !== null) await port.appendEvent(id, runId, "ACTION_ITEMS", { action_items: s.actionItems });
  if (s.longSummary !== null) await port.appendEvent(id, runId, "FINAL_LONG_SUMMARY", { long_summary: s.longSummary });
  return { short: s.shortSummary !== null, long: s.longSummary !== null, actionItems: s.actionItems !== null };
}

/** Words of every track in one timeline: sorted by start, ties keep track order (stable sort). */
export function mergeWords(perTrack: Word[][]): Word[] {
  return perTrack.flat().sort((a, b) => a.start - b.start);
}

/** The transcript text as the TRANSCRIPT event carries it (words carry their own spacing). */
export function wordsText(words: readonly Word[]): string {
  return words.map((w) => w.text).join("");
}
