// A transcript page opened directly (a link in an e-mail, a reload) waits for its code, which is
// loaded on first visit (a lazy route), and only then would ask for its data. The entry starts the
// requests the page needs first at once instead, while the page's code loads: the transcript, its
// topics with every word, and (signed in) the media token its audio player needs. The page takes
// each answer once, and asks again for every later load (and for a first one that came so late that
// an answer may be stale: a transcript still processing shows its player only when it is done).
import { api, session } from "./api";

const path = (id: string) => ({ params: { path: { transcript_id: id } } });
export const fetchTranscript = (id: string) => api.GET("/v1/transcripts/{transcript_id}", path(id));
export const fetchTopics = (id: string) => api.GET("/v1/transcripts/{transcript_id}/topics/with-words", path(id));
export const fetchAudioToken = (id: string) => api.POST("/v1/transcripts/{transcript_id}/audio/token", path(id));

interface Early {
  transcript?: ReturnType<typeof fetchTranscript>;
  topics?: ReturnType<typeof fetchTopics>;
  audioToken?: ReturnType<typeof fetchAudioToken>;
}
let early: { id: string; requests: Early } | null = null;
/** Long enough for the page's code to load on a slow link, well within a media token's lifetime. */
const EARLY_ANSWERS_KEPT_MS = 60_000;

/** Starts loading the transcript that `pathname` shows, if it is a transcript page. */
export function prefetchTranscriptPage(pathname: string): void {
  const match = /^\/transcripts\/([^/]+)\/?$/.exec(pathname);
  if (!match) return;
  const id = decodeURIComponent(match[1]!);
  const requests: Early = { transcript: fetchTranscript(id), topics: fetchTopics(id) };
  if (session.token()) requests.audioToken = fetchAudioToken(id);
  early = { id, requests };
  setTimeout(() => {
    if (early?.requests === requests) early = null;
  }, EARLY_ANSWERS_KEPT_MS);
}

/** The prefetched answer of `kind` for `id` the first time it is asked for, else a new request. */
function takeOnce<K extends keyof Early>(kind: K, id: string, fetch: (id: string) => NonNullable<Early[K]>): NonNullable<Early[K]> {
  const prefetched = early?.id === id ? early.requests[kind] : undefined;
  if (early?.id === id) delete early.requests[kind];
  return prefetched ?? fetch(id);
}

export const loadTranscriptData = (id: string) => takeOnce("transcript", id, fetchTranscript);
export const loadTopicsData = (id: string) => takeOnce("topics", id, fetchTopics);
export const loadAudioToken = (id: string) => takeOnce("audioToken", id, fetchAudioToken);
