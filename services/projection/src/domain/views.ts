// Read-model rows as the API shows them (api.md §1.6): list items and the single-transcript view.
import { isoformatUtc, type GetTranscriptMinimal, type Participant, type TranscriptParticipantWithEmail } from "@scribe/contracts";
import type { z } from "zod";
import type { DetailRow, MinimalRow } from "../store";

/**
 * A list item. `has_cloud_video`/`cloud_video_duration` are only computed for the single GET
 * (api.md §2.9); `deleted_at` is shown in change-feed mode only, where deleted rows are listed.
 */
export function minimalView(row: MinimalRow, opts: { feed: boolean }): GetTranscriptMinimal {
  const view: GetTranscriptMinimal = {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    status: row.status,
    locked: row.locked,
    duration: row.duration,
    title: row.title,
    short_summary: row.short_summary,
    long_summary: row.long_summary,
    created_at: isoformatUtc(row.created_at),
    share_mode: row.share_mode,
    source_language: row.source_language,
    target_language: row.target_language,
    reviewed: row.reviewed,
    meeting_id: row.meeting_id,
    source_kind: row.source_kind,
    room_id: row.room_id,
    room_name: row.room_name,
    audio_deleted: row.audio_deleted,
    change_seq: row.change_seq,
    has_cloud_video: false,
    cloud_video_duration: null,
  };
  if (!opts.feed) return view;
  if (row.deleted_at) return deletionView(view, isoformatUtc(row.deleted_at));
  return { ...view, deleted_at: null };
}

/**
 * A deleted transcript in the change feed says that it was deleted and nothing of what it held
 * (issue 15.11): id, change_seq and deleted_at; the other fields the item's schema requires are
 * empty (no name, title, summaries, owner, room or meeting).
 */
function deletionView(view: GetTranscriptMinimal, deletedAt: string): GetTranscriptMinimal {
  return {
    id: view.id,
    change_seq: view.change_seq,
    deleted_at: deletedAt,
    user_id: null,
    name: "",
    status: view.status,
    locked: false,
    duration: 0,
    title: null,
    short_summary: null,
    long_summary: null,
    created_at: deletedAt,
    share_mode: "private",
    source_language: null,
    target_language: null,
    reviewed: false,
    meeting_id: null,
    source_kind: view.source_kind,
    room_id: null,
    room_name: null,
    audio_deleted: null,
    has_cloud_video: false,
    cloud_video_duration: null,
  };
}

/** Participants of the single GET: `email` of a linked user needs the gateway's users (not yet): null. */
export function participantsWithEmail(row: DetailRow): z.infer<typeof TranscriptParticipantWithEmail>[] {
  return row.participants.map((p) => ({ id: p.id, speaker: p.speaker, name: p.name, user_id: p.user_id, email: null }));
}

export function participantView(p: DetailRow["participants"][number]): z.infer<typeof Participant> {
  return { id: p.id, speaker: p.speaker, name: p.name };
}

export function detailMinimal(row: DetailRow): GetTranscriptMinimal {
  return { ...minimalView(row, { feed: false }), has_cloud_video: row.has_cloud_video, cloud_video_duration: row.cloud_video_duration };
}
