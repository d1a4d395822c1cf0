// transcript.updated's WebVTT. A change of topics regenerates the transcript's WebVTT, and the
// transcript.updated that announces the change carries it: v2 as text, so two hours of the densest
// speech (a cue per word) made a ~1 MB event and three hours would pass NATS's default max_payload;
// v3 compressed, encoded as transcript.completed v2 carries it (`webvtt_gzip`). Every reader takes
// the WebVTT from here, so the v2 events still on the stream read the same as v3.
import { webvttGzip, webvttOfGzip } from "./completed-webvtt";
import type { TranscriptState, TranscriptUpdated } from "./events";

/** A state change as a reader applies it: the WebVTT as text, present only when the change changed it. */
export type TranscriptChange = Omit<TranscriptUpdated, "webvtt_gzip">;

/** transcript.updated's data (v3) announcing `after`: its WebVTT, compressed, only when `webvttChanged`. */
export function transcriptUpdated(after: TranscriptState, webvttChanged: boolean): TranscriptUpdated {
  const { webvtt, ...rest } = after;
  return webvttChanged ? { ...rest, webvtt_gzip: webvttGzip(webvtt) } : rest;
}

/**
 * The WebVTT a state event carries (transcript.updated v2 or v3; transcript.created and
 * transcript.completed's state carry it as text or not at all): undefined when the change left it as it was.
 */
export function carriedWebvtt(data: TranscriptUpdated): string | null | undefined {
  return data.webvtt_gzip !== undefined ? webvttOfGzip(data.webvtt_gzip) : data.webvtt;
}

/** The change a transcript.updated (v2 or v3) announces, its WebVTT as text. */
export function transcriptChange(data: TranscriptUpdated): TranscriptChange {
  const { webvtt_gzip: _compressed, webvtt: _text, ...state } = data;
  const webvtt = carriedWebvtt(data);
  return webvtt === undefined ? state : { ...state, webvtt };
}
