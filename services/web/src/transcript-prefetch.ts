// A transcript page opened directly (a link in an e-mail, a reload) waits for its code, which is
// loaded on first visit (a lazy route), and only then would ask for its data. The entry starts what
// the page needs first at once instead, while the page's code loads: the transcript, its topics
// with every word, and its recording's player, which starts loading the recording's metadata as
// soon as the transcript (it has audio) and the media token (signed in) are known, not after the
// page has rendered. The page takes each once, and asks again for every later load (and for a first
// one that came so late that an answer may be stale: a transcript still processing shows its player
// only when it is done).
import { api } from "./api";
import { audioUrl, playable } from "./components/audio-link";

const path = (id: string) => ({ params: { path: { transcript_id: id } } });
export const fetchTranscript = (id: string) => api.GET("/v1/transcripts/{transcript_id}", path(id));
export const fetchTopics = (id: string) => api.GET("/v1/transcripts/{transcript_id}/topics/with-words", path(id));

interface Early {
  transcript?: ReturnType<typeof fetchTranscript>;
  topics?: ReturnType<typeof fetchTopics>;
  /** Not in the document yet: the page's player puts it there. Null when there is nothing to play. */
  player?: Promise<HTMLAudioElement | null>;
}
let early: { id: string; requests: Early } | null = null;
/** Long enough for the page's code to load on a slow link, well within a media token's lifetime. */
const EARLY_ANSWERS_KEPT_MS = 60_000;

/** An <audio> element loading the recording's metadata, or null if the recording cannot be played. */
async function loadingPlayer(id: string, transcript: ReturnType<typeof fetchTranscript>): Promise<HTMLAudioElement | null> {
  // The media token is asked for with the transcript, not after it: once the transcript is there,
  // the page's render holds the main thread long enough to delay any request started behind it.
  const [{ data }, link] = await Promise.all([transcript, audioUrl(id)]);
  // Nothing to play, or no address (the page's player asks again and shows why).
  if (!data || !playable(data) || "error" in link) return null;
  const player = new Audio();
  player.preload = "metadata";
  player.src = link.url;
  return player;
}

/** Starts loading the transcript that `pathname` shows, if it is a transcript page. */
export function prefetchTranscriptPage(pathname: string): void {
  const match = /^\/transcripts\/([^/]+)\/?$/.exec(pathname);
  if (!match) return;
  const id = decodeURIComponent(match[1]!);
  const transcript = fetchTranscript(id);
  const requests: Early = { transcript, topics: fetchTopics(id), player: loadingPlayer(id, transcript) };
  early = { id, requests };
  setTimeout(() => {
    if (early?.requests !== requests) return;
    early = null;
    // Never taken: stop loading the recording.
    void requests.player?.then((player) => player?.removeAttribute("src"));
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
/** The player the entry started loading for transcript `id`, once; null if there is none. */
export const takeEarlyPlayer = (id: string) => takeOnce("player", id, () => Promise.resolve(null));
