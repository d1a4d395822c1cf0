// Media queries over request/reply: access is decided here, the answer says where the bytes are
// (bucket + key) and the gateway streams them; nothing larger than a bus message comes back.
import { recordingsOps, topicsToWebvtt, transcriptKeys } from "@scribe/contracts";
import { NotFound, type RpcServer, type Sql } from "@scribe/kit";
import type { RecordingsConfig } from "./config";
import { assertAudioRead, assertInternal, assertOwner, assertRead, type KnownTranscript } from "./domain/access";
import type { OpenBucket } from "./media";
import {
  composedVideoOf,
  filesOf,
  mixdownDeleted,
  recordingIdsOfTranscript,
  recordingView,
  topicAt,
  topicsOf,
  transcriptById,
} from "./store";

/** `<prefix>_<first group of the id>.<ext>`, the reference's download names. */
export function downloadName(prefix: string, id: string, ext: string): string {
  return `${prefix}_${id.split("-")[0]}.${ext}`;
}

const NO_VIDEO = "No video available";
const basename = (key: string) => key.slice(key.lastIndexOf("/") + 1);

export function registerQueries(rpc: RpcServer, sql: Sql, open: OpenBucket, config: RecordingsConfig): void {
  const transcripts = config.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME;

  /** Consent cleanup sets audio_deleted on the transcript; delete_media records it here at once. */
  const audioGone = async (t: KnownTranscript) => t.state.audio_deleted === true || (await mixdownDeleted(sql, t.state.id));

  rpc.handle(recordingsOps.audio, async ({ caller, transcript_id }) => {
    const t = await transcriptById(sql, transcript_id);
    assertAudioRead(t, caller);
    if (await audioGone(t)) throw NotFound("Audio unavailable due to privacy settings");
    return { bucket: transcripts, key: transcriptKeys.mp3(transcript_id), filename: downloadName("recording", transcript_id, "mp3") };
  });

  rpc.handle(recordingsOps.waveform, async ({ caller, transcript_id }) => {
    assertRead(await transcriptById(sql, transcript_id), caller);
    return { bucket: transcripts, key: transcriptKeys.waveform(transcript_id) };
  });

  async function composedVideo(transcriptId: string, caller: Parameters<typeof assertRead>[1]) {
    const t = await transcriptById(sql, transcriptId);
    assertRead(t, caller);
    const video = t.state.meeting_id ? await composedVideoOf(sql, t.state.meeting_id) : null;
    if (!video) throw NotFound(NO_VIDEO);
    return video;
  }

  rpc.handle(recordingsOps.videoUrl, async ({ caller, transcript_id }) => {
    const video = await composedVideo(transcript_id, caller);
    const presigned = await open(video.bucket).presignGet(video.key, {
      expiresInSeconds: 900,
      contentType: "video/mp4",
      contentDisposition: "inline",
    });
    // The local driver cannot presign: the gateway streams the file at this address instead.
    const url = presigned ?? `${config.BASE_URL.replace(/\/$/, "")}/v1/transcripts/${encodeURIComponent(transcript_id)}/video/file`;
    const duration = video.duration_seconds === null ? null : Math.round(video.duration_seconds);
    return { url, duration, content_type: "video/mp4" };
  });

  rpc.handle(recordingsOps.videoFile, async ({ caller, transcript_id }) => {
    const video = await composedVideo(transcript_id, caller);
    return { bucket: video.bucket, key: video.key };
  });

  rpc.handle(recordingsOps.zip, async ({ caller, transcript_id }) => {
    const t = await transcriptById(sql, transcript_id);
    assertOwner(t, caller);
    const s = t.state;
    const entries: { name: string; bucket: string; key: string }[] = [];
    if (!(await audioGone(t))) entries.push({ name: "audio.mp3", bucket: transcripts, key: transcriptKeys.mp3(s.id) });
    const recordings = await recordingIdsOfTranscript(sql, s.id);
    for (const f of await filesOf(sql, recordings, ["audio_track"])) {
      if (f.deleted_at === null) entries.push({ name: `tracks/${basename(f.key)}`, bucket: f.bucket, key: f.key });
    }
    const video = s.meeting_id ? await composedVideoOf(sql, s.meeting_id) : null;
    const topics = await topicsOf(sql, s.id);
    if (video) entries.push({ name: "cloud_video.mp4", bucket: video.bucket, key: video.key });
    return {
      filename: downloadName("transcript", s.id, "zip"),
      entries,
      metadata: {
        id: s.id,
        title: s.title,
        created_at: s.created_at,
        duration: s.duration,
        source_language: s.source_language,
        target_language: s.target_language,
        short_summary: s.short_summary,
        long_summary: s.long_summary,
        participants: s.participants,
        action_items: s.action_items,
        // Rendered from the copied topics: transcript.updated leaves an unchanged WebVTT out.
        webvtt: topicsToWebvtt(topics),
        recording_id: s.recording_id,
        meeting_id: s.meeting_id,
      },
      topic_count: topics.length,
    };
  });

  rpc.handle(recordingsOps.zipTopic, async ({ caller, transcript_id, position }) => {
    assertOwner(await transcriptById(sql, transcript_id), caller);
    const topic = await topicAt(sql, transcript_id, position);
    if (!topic) throw NotFound("Topic not found");
    return topic;
  });

  rpc.handle(recordingsOps.get, async ({ caller, recording_id }) => {
    assertInternal(caller);
    const view = await recordingView(sql, recording_id);
    if (!view) throw NotFound("Recording not found");
    return view;
  });
}
