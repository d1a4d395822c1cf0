// Deleting stored files: requested deletions are carried out against storage and marked done, by
// the periodic job or at once by the operations that must answer with the outcome.
import { transcriptKeys, type DeleteMediaResult, type MediaPart, type RpcRequest, type recordingsOps } from "@scribe/contracts";
import { NotFound, type Sql } from "@scribe/kit";
import type { RecordingsConfig } from "./config";
import type { FileRole } from "./domain/recordings";
import { deleteObjects, type OpenBucket } from "./media";
import {
  chunksOf,
  composedVideoRecordingIds,
  deleteChunks,
  filesOf,
  lockPendingDeletions,
  markDeleted,
  meetingIdsOf,
  mixdownDeleted,
  recordMixdownDeleted,
  recordingExists,
  recordingIdsOfTranscript,
  requestFileDeletion,
  transcriptById,
  type StoredFile,
} from "./store";

const BATCH = 200;

export const ROLES_OF_PART: Record<MediaPart, FileRole[]> = {
  tracks: ["audio_track", "file"],
  video: ["video_track", "composed_video"],
  upload: ["upload"],
  mixdown: [],
};
const PART_OF_ROLE: Record<FileRole, MediaPart> = {
  audio_track: "tracks",
  file: "tracks",
  video_track: "video",
  composed_video: "video",
  upload: "upload",
};

/** Carry out requested deletions (all, or those of some recordings); returns how many files went. */
export async function purgeRequested(sql: Sql, open: OpenBucket, opts: { recordingIds?: string[]; wait: boolean }): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await sql.begin(async (tx) => {
      const files = await lockPendingDeletions(tx, { recordingIds: opts.recordingIds, limit: BATCH, wait: opts.wait });
      await deleteObjects(open, files);
      await markDeleted(tx, files);
      return files.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

function deletedOf(files: StoredFile[]): DeleteMediaResult["deleted"] {
  return files.filter((f) => f.deleted_at !== null).map((f) => ({ bucket: f.bucket, key: f.key, part: PART_OF_ROLE[f.role] }));
}

type DeleteMediaRequest = Omit<RpcRequest<typeof recordingsOps.deleteMedia>, "caller" | "recording_id"> & { recording_id: string | null };

/** recordings.delete_media: every stored file of the named parts, in whichever storage holds it. */
export async function deleteMedia(
  sql: Sql,
  open: OpenBucket,
  config: RecordingsConfig,
  req: DeleteMediaRequest,
): Promise<DeleteMediaResult> {
  let recordingIds: string[];
  if (req.recording_id !== null) {
    if (!(await recordingExists(sql, req.recording_id))) throw NotFound("Recording not found");
    recordingIds = [req.recording_id];
  } else {
    recordingIds = await recordingIdsOfTranscript(sql, req.transcript_id);
  }
  const parts = new Set(req.parts);
  const roles = [...parts].flatMap((p) => ROLES_OF_PART[p]);
  let targets = recordingIds;
  if (parts.has("video")) {
    // Consent covers the meeting's composed video too, whichever recording event brought it.
    const transcript = await transcriptById(sql, req.transcript_id);
    const meetings = new Set(await meetingIdsOf(sql, recordingIds));
    if (transcript?.state.meeting_id) meetings.add(transcript.state.meeting_id);
    targets = [...new Set([...recordingIds, ...(await composedVideoRecordingIds(sql, [...meetings]))])];
  }
  await requestFileDeletion(sql, targets, roles, req.reason);
  await purgeRequested(sql, open, { recordingIds: targets, wait: true });

  const deleted = deletedOf(await filesOf(sql, targets, roles));
  const transcriptsBucket = config.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME;
  if (parts.has("mixdown")) {
    const mp3 = { bucket: transcriptsBucket, key: transcriptKeys.mp3(req.transcript_id) };
    await deleteObjects(open, [mp3]);
    await recordMixdownDeleted(sql, req.transcript_id, mp3.bucket, mp3.key, req.reason);
  }
  if (parts.has("upload")) {
    const chunks = await chunksOf(sql, req.transcript_id);
    await deleteObjects(open, chunks);
    await deleteChunks(sql, req.transcript_id);
    deleted.push(...chunks.map((c) => ({ bucket: c.bucket, key: c.key, part: "upload" as const })));
  }
  if (parts.has("mixdown") && (await mixdownDeleted(sql, req.transcript_id))) {
    deleted.push({ bucket: transcriptsBucket, key: transcriptKeys.mp3(req.transcript_id), part: "mixdown" });
  }
  return { recording_ids: targets, deleted };
}

/** recordings.delete_video: a recording's video tracks (or its composed video), audio untouched. */
export async function deleteVideo(sql: Sql, open: OpenBucket, recordingId: string): Promise<DeleteMediaResult> {
  if (!(await recordingExists(sql, recordingId))) throw NotFound("Recording not found");
  const roles = ROLES_OF_PART.video;
  await requestFileDeletion(sql, [recordingId], roles, "operator");
  await purgeRequested(sql, open, { recordingIds: [recordingId], wait: true });
  return { recording_ids: [recordingId], deleted: deletedOf(await filesOf(sql, [recordingId], roles)) };
}
