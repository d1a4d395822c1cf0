// The recording's address for the <audio> element and the download link, which cannot send an
// Authorization header. Signed in, it carries a short-lived media token that opens this
// transcript's audio only (POST …/audio/token), asked for when needed: never the user's own token,
// which in a URL would end up in history, server logs and copied links, and open the whole API for
// as long as it lives.
import { describeError, session } from "../api";
import { loadAudioToken } from "../transcript-prefetch";

const mp3Path = (id: string) => `/v1/transcripts/${encodeURIComponent(id)}/audio/mp3`;

/** A fresh address of the transcript's audio, or why there is none. */
export async function audioUrl(id: string): Promise<{ url: string } | { error: string }> {
  // Without an account there is nothing to protect: the route serves anonymous transcripts' audio as is.
  if (!session.token()) return { url: mp3Path(id) };
  const { data, error } = await loadAudioToken(id);
  if (!data) return { error: describeError(error) };
  return { url: `${mp3Path(id)}?${new URLSearchParams({ token: data.token }).toString()}` };
}
