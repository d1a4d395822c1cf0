// A transcript page opened directly (a link in an e-mail, a reload) waits for its code, which is
// loaded on first visit (a lazy route), and only then would ask for its data. The entry starts the two
// big requests (the transcript, and its topics with every word) at once instead, while the page's
// code loads; the page takes each answer once, and asks again for every later load.
import { api } from "./api";

const path = (id: string) => ({ params: { path: { transcript_id: id } } });
export const fetchTranscript = (id: string) => api.GET("/v1/transcripts/{transcript_id}", path(id));
export const fetchTopics = (id: string) => api.GET("/v1/transcripts/{transcript_id}/topics/with-words", path(id));

let early: { id: string; transcript?: ReturnType<typeof fetchTranscript>; topics?: ReturnType<typeof fetchTopics> } | null = null;

/** Starts loading the transcript that `pathname` shows, if it is a transcript page. */
export function prefetchTranscriptPage(pathname: string): void {
  const match = /^\/transcripts\/([^/]+)\/?$/.exec(pathname);
  if (!match) return;
  const id = decodeURIComponent(match[1]!);
  early = { id, transcript: fetchTranscript(id), topics: fetchTopics(id) };
}

/** The prefetched answer for `id` the first time it is asked for, else a new request. */
export function loadTranscriptData(id: string): ReturnType<typeof fetchTranscript> {
  const prefetched = early?.id === id ? early.transcript : undefined;
  if (early?.id === id) delete early.transcript;
  return prefetched ?? fetchTranscript(id);
}

export function loadTopicsData(id: string): ReturnType<typeof fetchTopics> {
  const prefetched = early?.id === id ? early.topics : undefined;
  if (early?.id === id) delete early.topics;
  return prefetched ?? fetchTopics(id);
}
