// A destroyed transcript (its owner destroyed it, or retention expired it) leaves nothing behind:
// every file of its recordings (tracks, video, upload, the meeting's composed video), its objects
// in the transcripts bucket (mixdown, waveform, work files) and the recording rows. The consumer
// only records the request; the purge job deletes from storage, then the rows.
import { transcriptKeys, type TranscriptDestroyed } from "@scribe/contracts";
import type { Logger, Sql, Tx } from "@scribe/kit";
import type { z } from "zod";
import type { FileRole } from "./domain/recordings";
import type { OpenBucket } from "./media";
import {
  composedVideoRecordingIds,
  deleteChunks,
  markTranscriptDestroyed,
  meetingIdsOf,
  recordingIdsOfTranscript,
  requestFileDeletion,
} from "./store";

const ALL_ROLES: FileRole[] = ["audio_track", "video_track", "file", "upload", "composed_video"];
const BATCH = 20;

export async function requestTranscriptPurge(
  tx: Tx,
  ev: z.infer<typeof TranscriptDestroyed>,
  transcriptsBucket: string,
  now: Date,
): Promise<void> {
  const t = ev.transcript;
  await markTranscriptDestroyed(tx, t, now);
  const reason = ev.reason === "retention" ? "retention" : "destroy";
  const recordings = await recordingIdsOfTranscript(tx, t.id);
  const meetings = new Set(await meetingIdsOf(tx, recordings));
  if (t.meeting_id) meetings.add(t.meeting_id);
  const targets = [...new Set([...recordings, ...(await composedVideoRecordingIds(tx, [...meetings]))])];
  await requestFileDeletion(tx, targets, ALL_ROLES, reason);
  if (targets.length) {
    await tx`update recording set delete_requested_at = coalesce(delete_requested_at, now()) where id = any(${targets}::text[])`;
  }
  await tx`insert into transcript_purge (transcript_id, bucket, reason) values (${t.id}, ${transcriptsBucket}, ${reason})
    on conflict (transcript_id) do nothing`;
}

/**
 * Deletes the transcripts-bucket objects of destroyed transcripts, then the recordings whose files
 * are all gone (their file rows cascade). Run by the purge job after the requested file deletions.
 */
export async function purgeDestroyed(sql: Sql, open: OpenBucket, log: Logger): Promise<number> {
  let done = 0;
  for (;;) {
    const n = await sql.begin(async (tx) => {
      const rows = await tx<{ transcript_id: string; bucket: string }[]>`select transcript_id, bucket from transcript_purge
        where done_at is null order by requested_at limit ${BATCH} for update skip locked`;
      for (const r of rows) {
        const storage = open(r.bucket);
        const keys: string[] = [];
        for await (const o of storage.list(transcriptKeys.prefix(r.transcript_id))) keys.push(o.key);
        await storage.delete(keys);
        await deleteChunks(tx, r.transcript_id);
        await tx`update transcript_purge set done_at = now() where transcript_id = ${r.transcript_id}`;
        log.info({ transcriptId: r.transcript_id, objects: keys.length }, "destroyed transcript's objects deleted");
      }
      return rows.length;
    });
    done += n;
    if (n < BATCH) break;
  }
  await sql`delete from recording r where r.delete_requested_at is not null
    and not exists (select 1 from recording_file f where f.recording_id = r.id and f.deleted_at is null)`;
  return done;
}
