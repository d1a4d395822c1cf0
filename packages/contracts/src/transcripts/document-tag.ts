// Entity tags of GET /v1/transcripts/{id} (ETag / If-None-Match). The projection tags what it
// renders from the read model (the row's change_seq, which every change of the row moves, the
// meeting's version for the cloud video, the recording's multitrack flag, and the format); the
// gateway, which adds participants' e-mail addresses, appends a digest of those when there are any.

/** Reply header of `projection.document`: the projection's tag of the document. */
export const DOCUMENT_TAG_HEADER = "Scribe-Document-Tag";
/** Reply header of `projection.document`: user ids of the participants (comma-separated), whose e-mails the gateway adds. */
export const PARTICIPANT_USERS_HEADER = "Scribe-Participant-Users";

export interface DocumentStamp {
  change_seq: number;
  meeting_version: number;
  multitrack: boolean;
}

export function documentTag(stamp: DocumentStamp, format: string): string {
  return `t${stamp.change_seq}-m${stamp.meeting_version}-r${stamp.multitrack ? 1 : 0}-${format}`;
}

/** The opaque tags of an If-None-Match header (weak or strong alike; "*" kept as "*"). */
export function ifNoneMatchTags(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .filter((t) => t.length > 0)
    .map((t) => (t === "*" ? t : t.replace(/^"(.*)"$/, "$1")));
}

/** Whether If-None-Match names `tag` (or, with `prefixOf`, a tag the gateway built on it). */
export function tagNamed(header: string | null | undefined, tag: string, opts: { prefixOf?: boolean } = {}): boolean {
  return ifNoneMatchTags(header).some((t) => t === "*" || t === tag || (opts.prefixOf === true && t.startsWith(`${tag}.`)));
}
