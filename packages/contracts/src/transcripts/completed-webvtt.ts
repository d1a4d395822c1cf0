// transcript.completed's WebVTT, carried once (v2). The webhook (behaviour §3.5) sends the
// transcript's WebVTT and every topic's own WebVTT; v1 carried both, so the text travelled twice
// and an hour of dense speech filled NATS's 1 MB max_payload. Neither is derivable from the other's
// text: a topic's cues are cut afresh at its first word, while the transcript's run on across topic
// boundaries (a speaker still talking, a segment not yet closed), and a cut moved by one word can
// keep the two out of step until the next speaker change. So v2 carries the transcript's WebVTT
// (gzip, base64: a cue per word compresses about six times) and each topic's WebVTT as parts: pieces
// of the transcript's, and the cues cut differently at its edges as text.
import { gunzipSync, gzipSync } from "node:zlib";
import type { z } from "@hono/zod-openapi";
import type { TranscriptCompleted, WebvttPart as Part } from "./events";
import { wordsToWebvttPieces, type TopicWords } from "./render";

type Completed = z.infer<typeof TranscriptCompleted>;

export function gzipText(text: string): string {
  return gzipSync(Buffer.from(text, "utf8")).toString("base64");
}

export function gunzipText(base64: string): string {
  return gunzipSync(Buffer.from(base64, "base64")).toString("utf8");
}

/** A WebVTT as `webvtt_gzip` carries it (transcript.completed v2, transcript.updated v3): null stays null (no WebVTT). */
export function webvttGzip(webvtt: string | null): string | null {
  return webvtt === null ? null : gzipText(webvtt);
}

/** The WebVTT a `webvtt_gzip` carries. */
export function webvttOfGzip(webvttGzip: string | null): string | null {
  return webvttGzip === null ? null : gunzipText(webvttGzip);
}

/**
 * `pieces` (joined: the text to carry) as parts of `source`: each piece found in `source` at or
 * after the previous one becomes a range (ranges that meet are merged), the others stay text.
 * Exact whatever `source` holds; small when the pieces are mostly `source`'s own.
 */
export function partsOf(pieces: readonly string[], source: string): Part[] {
  const parts: Part[] = [];
  let cursor = 0;
  for (const piece of pieces) {
    if (piece === "") continue;
    const last = parts[parts.length - 1];
    const at = source.startsWith(piece, cursor) ? cursor : source.indexOf(piece, cursor);
    if (at < 0) {
      if (typeof last === "string") parts[parts.length - 1] = last + piece;
      else parts.push(piece);
      continue;
    }
    if (Array.isArray(last) && last[1] === at) last[1] = at + piece.length;
    else parts.push([at, at + piece.length]);
    cursor = at + piece.length;
  }
  return parts;
}

/** The text `parts` describe: ranges of `source` (UTF-16 code units, end excluded) and text, in order. */
export function textOfParts(parts: readonly Part[], source: string): string {
  let out = "";
  for (const p of parts) {
    if (typeof p === "string") out += p;
    else if (p[1] > source.length || p[0] > p[1])
      throw new RangeError(`WebVTT part [${p[0]}, ${p[1]}) is outside the transcript's WebVTT (${source.length})`);
    else out += source.slice(p[0], p[1]);
  }
  return out;
}

/**
 * What transcript.completed v2 carries of the WebVTT: the transcript's (`webvtt`, the stored column)
 * compressed, and each topic's WebVTT (wordsToWebvtt of its words) as parts of it.
 */
export function completedWebvtt(
  webvtt: string | null,
  topics: readonly TopicWords[],
): { webvtt_gzip: string | null; topicParts: Part[][] } {
  const source = webvtt ?? "";
  return {
    webvtt_gzip: webvttGzip(webvtt),
    // Each topic searches from the start: its cues are where they are, whatever the topics before found.
    topicParts: topics.map((t) => partsOf(wordsToWebvttPieces(t.words), source)),
  };
}

export interface CompletedTopicText {
  id: string;
  title: string;
  summary: string;
  timestamp: number;
  duration: number | null;
  webvtt: string;
}

/**
 * The transcript's WebVTT and the topics with their WebVTT, as v1 carried them, from either
 * version: what every reader of transcript.completed (the webhook) works from.
 */
export function completedTexts(data: Completed): { webvtt: string | null; topics: CompletedTopicText[] } {
  const webvtt = data.webvtt_gzip !== undefined ? webvttOfGzip(data.webvtt_gzip) : (data.transcript.webvtt ?? null);
  const topics = data.topics.map(({ webvtt_parts, webvtt: text, ...topic }, i) => {
    if (text !== undefined) return { ...topic, webvtt: text };
    if (webvtt_parts === undefined) throw new Error(`transcript.completed topic ${i} carries neither webvtt nor webvtt_parts`);
    return { ...topic, webvtt: textOfParts(webvtt_parts, webvtt ?? "") };
  });
  return { webvtt, topics };
}
