// The whole summarisation of one transcript, in the pipeline's order: topics (chunked as the file
// pipeline does), the title from the topic titles, then the summaries and action items. The
// pipelines run these steps separately; this is the same sequence for tools, tests and benchmarks.
import type { MeetingSummary, Summariser, SummaryContext, Word } from "../types";
import { topicChunks } from "./chunking";

export interface DetectedTopic {
  title: string;
  summary: string;
  /** First word's start, seconds. */
  timestamp: number;
  duration: number;
  /** The topic's words concatenated. */
  transcript: string;
  words: Word[];
}

export async function detectTopics(
  words: readonly Word[],
  summariser: Summariser,
  ctx: SummaryContext,
  opts: { durationSeconds?: number; accumulate?: boolean } = {},
): Promise<DetectedTopic[]> {
  const topics: DetectedTopic[] = [];
  for (const chunk of topicChunks(words, opts)) {
    const { title, summary } = await summariser.topic(chunk, ctx);
    const first = chunk[0]!;
    const last = chunk[chunk.length - 1]!;
    topics.push({
      title,
      summary,
      timestamp: first.start,
      duration: last.end - first.start,
      transcript: chunk.map((w) => w.text).join(""),
      words: chunk,
    });
  }
  return topics;
}

export interface MeetingResult {
  topics: DetectedTopic[];
  title: string | null;
  summary: MeetingSummary;
}

export async function summariseMeeting(
  words: readonly Word[],
  summariser: Summariser,
  ctx: SummaryContext,
  opts: { durationSeconds?: number } = {},
): Promise<MeetingResult> {
  const topics = await detectTopics(words, summariser, ctx, opts);
  const title = await summariser.title(
    topics.map((t) => t.title),
    ctx,
  );
  const summary = topics.length
    ? await summariser.summary({ words, ctx, ...(opts.durationSeconds !== undefined ? { durationSeconds: opts.durationSeconds } : {}) })
    : { subjects: [], shortSummary: null, longSummary: null, actionItems: null };
  return { topics, title, summary };
}
