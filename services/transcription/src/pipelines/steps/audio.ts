// The media half of both pipelines, each function one step's work: fetch from storage into a
// scratch folder, run ffmpeg / speech-to-text, upload results where the read side serves them
// (`<id>/audio.mp3` and `<id>/audio.json` in the transcripts bucket, see recordings' queries.ts).
import { join } from "node:path";
import type { Word } from "@scribe/ai";
import { transcriptKeys } from "@scribe/contracts";
import { isAppError } from "@scribe/kit";
import {
  analyzeAudio,
  assertAudible,
  audioDurationMs,
  downloadObject,
  encodeMp3,
  MediaError,
  mixdown,
  probe,
  trackStartOffset,
  uploadFile,
} from "@scribe/media";
import type { PipelineDeps } from "../deps";
import type { Track } from "../input";
import type { PipelineInput } from "../port";
import { extensionOf, withWorkspace } from "./workspace";

export interface StepIo {
  signal: AbortSignal;
  /** Keeps a long step visibly alive (ffmpeg progress, speech-to-text chunks). */
  heartbeat: () => void;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

async function fetchTo(deps: PipelineDeps, bucket: string, key: string, dir: string, name: string, io: StepIo): Promise<string> {
  const path = join(dir, `${name}.${extensionOf(key)}`);
  try {
    await downloadObject(deps.openBucket(bucket), key, path, { signal: io.signal });
  } catch (e) {
    // A missing object fails the same way on every attempt: say which one and stop.
    if (isAppError(e) && e.kind === "not_found") {
      throw new MediaError("not_found", `recording file not found: ${bucket}/${key}`, { cause: e });
    }
    throw e;
  }
  return path;
}

async function transcribe(deps: PipelineDeps, path: string, language: string, io: StepIo): Promise<Word[]> {
  const t = await deps.ai.stt.transcribe(path, { language, signal: io.signal });
  return t.words.map((w) => ({ text: w.text, start: Math.max(0, w.start), end: Math.max(0, w.end), speaker: 0 }));
}

export interface TrackResult {
  index: number;
  /** Seconds from the recording's start to the track's first sample. */
  offset: number;
  words: Word[];
}

/**
 * One track (§5.2): its start offset (given by the platform, else read from the container), then
 * its words on the recording's timeline, each spoken by the track's participant (speaker = index).
 */
export async function processTrack(
  deps: PipelineDeps,
  input: PipelineInput,
  track: Track,
  index: number,
  io: StepIo,
): Promise<TrackResult> {
  return withWorkspace(deps.workDir, `${input.transcript_id}-track${index}`, async (dir) => {
    const path = await fetchTo(deps, input.bucket, track.key, dir, `track${index}`, io);
    // Probed even when the platform gives the offset: a corrupt track then fails with the probe's
    // clear "input is corrupt" rather than the decoder's output about a scratch path.
    const probed = await trackStartOffset(path, { signal: io.signal });
    const offset = track.start_offset_seconds ?? probed.seconds;
    io.heartbeat();
    const words = await transcribe(deps, path, input.source_language, io);
    return {
      index,
      offset: round3(offset),
      words: words.map((w) => ({ ...w, start: round3(w.start + offset), end: round3(w.end + offset), speaker: index })),
    };
  });
}

export interface AudioOutput {
  /** Milliseconds, never NaN or negative. */
  duration_ms: number;
}

/** Mix every track at its offset into `<id>/audio.mp3` (§5.3 mixdown_tracks); silence everywhere is an error. */
export async function mixdownTracks(deps: PipelineDeps, input: PipelineInput, offsets: number[], io: StepIo): Promise<AudioOutput> {
  return withWorkspace(deps.workDir, `${input.transcript_id}-mixdown`, async (dir) => {
    const paths: string[] = [];
    for (const [i, t] of input.tracks.entries()) paths.push(await fetchTo(deps, input.bucket, t.key, dir, `track${i}`, io));
    const out = join(dir, "audio.mp3");
    const info = await mixdown(
      paths.map((p, i) => ({ input: p, offsetSeconds: offsets[i] ?? 0 })),
      out,
      { format: { kind: "mp3", bitrateKbps: 64 }, signal: io.signal, onProgress: io.heartbeat },
    );
    await assertAudible(out, { signal: io.signal });
    await uploadFile(deps.openBucket(deps.transcriptsBucket), transcriptKeys.mp3(input.transcript_id), out, "audio/mpeg");
    return { duration_ms: info.durationMs };
  });
}

/**
 * File pipeline extract (§4.2): refuse corrupt or silent input with a clear, non-retryable error,
 * encode the MP3 the read side serves, measure the duration from the source's packets.
 */
export async function extractAudio(deps: PipelineDeps, input: PipelineInput, io: StepIo): Promise<AudioOutput> {
  const file = input.file;
  if (!file) throw new MediaError("invalid_argument", `run of kind file has no file (transcript ${input.transcript_id})`);
  return withWorkspace(deps.workDir, `${input.transcript_id}-extract`, async (dir) => {
    const source = await fetchTo(deps, input.bucket, file.key, dir, "upload", io);
    // The upload is untrusted: only a self-contained container passes, and every later run reads
    // it with exactly the demuxer found here (a playlist fails now as unsupported_format).
    const { demuxer } = await probe(source, { signal: io.signal });
    const read = { signal: io.signal, inputFormat: demuxer };
    await assertAudible(source, read);
    io.heartbeat();
    const out = join(dir, "audio.mp3");
    await encodeMp3(source, out, { ...read, onProgress: io.heartbeat });
    const duration = await audioDurationMs(source, read);
    await uploadFile(deps.openBucket(deps.transcriptsBucket), transcriptKeys.mp3(input.transcript_id), out, "audio/mpeg");
    return { duration_ms: duration };
  });
}

/** Words of the processed MP3 (file pipeline): speaker 0 until diarization assigns speakers. */
export async function transcribeMp3(deps: PipelineDeps, input: PipelineInput, io: StepIo): Promise<Word[]> {
  return withWorkspace(deps.workDir, `${input.transcript_id}-transcribe`, async (dir) => {
    const path = await fetchTo(deps, deps.transcriptsBucket, transcriptKeys.mp3(input.transcript_id), dir, "audio", io);
    return (await transcribe(deps, path, input.source_language, io)).map((w) => ({ ...w, start: round3(w.start), end: round3(w.end) }));
  });
}

/** Download the processed MP3 and hand its local path to `fn` (diarization reads it). */
export async function withMp3<T>(deps: PipelineDeps, input: PipelineInput, io: StepIo, fn: (path: string) => Promise<T>): Promise<T> {
  return withWorkspace(deps.workDir, `${input.transcript_id}-mp3`, async (dir) =>
    fn(await fetchTo(deps, deps.transcriptsBucket, transcriptKeys.mp3(input.transcript_id), dir, "audio", io)),
  );
}

export interface WaveformOutput {
  waveform: number[];
  duration_ms: number;
}

/** §7.3: 255 peaks of the processed MP3, stored as a bare JSON array at `<id>/audio.json`; never NaN. */
export async function storeWaveform(deps: PipelineDeps, input: PipelineInput, io: StepIo): Promise<WaveformOutput> {
  return withMp3(deps, input, io, async (path) => {
    const a = await analyzeAudio(path, { signal: io.signal });
    const waveform = a.waveform.map((v) => (Number.isFinite(v) ? v : 0));
    await deps
      .openBucket(deps.transcriptsBucket)
      .put(transcriptKeys.waveform(input.transcript_id), JSON.stringify(waveform), { contentType: "application/json" });
    return { waveform, duration_ms: a.durationMs };
  });
}
