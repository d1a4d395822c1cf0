// The recording's address for the <audio> element and the download link, which cannot send an
// Authorization header. Signed in, it carries a short-lived media token that opens this
// transcript's audio only (POST …/audio/token), asked for when needed: never the user's own token,
// which in a URL would end up in history, server logs and copied links, and open the whole API for
// as long as it lives.
import type { Schemas } from "@scribe/client";
import { api, describeError, session } from "../api";

const mp3Path = (id: string) => `/v1/transcripts/${encodeURIComponent(id)}/audio/mp3`;

/**
 * Whether this caller can play the transcript's recording: processed, its audio kept, and the mp3
 * route serves an owned transcript only to a signed-in caller (api.md §2.14).
 */
export function playable(t: Pick<Schemas["GetTranscriptWithParticipants"], "status" | "audio_deleted" | "user_id">): boolean {
  return t.status === "ended" && !t.audio_deleted && (!!session.token() || t.user_id === null);
}

/** A fresh address of the transcript's audio, or why there is none. */
export async function audioUrl(id: string): Promise<{ url: string } | { error: string }> {
  // Without an account there is nothing to protect: the route serves anonymous transcripts' audio as is.
  if (!session.token()) return { url: mp3Path(id) };
  const { data, error } = await api.POST("/v1/transcripts/{transcript_id}/audio/token", { params: { path: { transcript_id: id } } });
  if (!data) return { error: describeError(error) };
  return { url: `${mp3Path(id)}?${new URLSearchParams({ token: data.token }).toString()}` };
}
