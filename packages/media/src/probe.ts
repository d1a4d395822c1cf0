// What a media file contains (ffprobe, parsed with zod), the start offset of a recorded track as the
// multitrack pipeline reads it, and the audio duration in milliseconds (never NaN or negative).
import { z } from "zod";
import { MediaError, describeInput } from "./errors";
import { inputGuardArgs, localPath, runTool, SELF_CONTAINED_FORMATS, type MediaOptions } from "./tool";

export interface StreamInfo {
  index: number;
  /** ffprobe's codec_type: audio, video, subtitle, data, attachment. */
  type: string;
  codec: string | null;
  sampleRate: number | null;
  channels: number | null;
  /** Seconds (ffprobe already applies the stream's time base). */
  startTime: number | null;
  duration: number | null;
}

export interface ProbeResult {
  /** Demuxer name, e.g. `matroska,webm`, `mp3`, `wav`. */
  format: string;
  /** The demuxer to name with `-f` in later runs (`inputFormat`), one of SELF_CONTAINED_FORMATS. */
  demuxer: string;
  /** Container duration in seconds; for WebM this is the end timestamp, so it includes any start offset. */
  duration: number | null;
  /** Container start time in seconds. */
  startTime: number | null;
  sizeBytes: number | null;
  bitRate: number | null;
  streams: StreamInfo[];
  hasAudio: boolean;
  hasVideo: boolean;
  /** The first audio stream (what every operation here uses), or null. */
  audio: StreamInfo | null;
}

/** ffprobe prints numbers as strings and "N/A" when unknown. */
const num = z
  .union([z.string(), z.number()])
  .optional()
  .transform((v) => {
    if (v === undefined) return null;
    const n = typeof v === "number" ? v : Number.parseFloat(v);
    return Number.isFinite(n) ? n : null;
  });

const FfprobeOutput = z.object({
  streams: z
    .array(
      z.object({
        index: z.number().int(),
        codec_type: z.string().default("unknown"),
        codec_name: z.string().optional(),
        sample_rate: num,
        channels: z.number().int().optional(),
        start_time: num,
        duration: num,
      }),
    )
    .default([]),
  format: z
    .object({
      format_name: z.string().default("unknown"),
      start_time: num,
      duration: num,
      size: num,
      bit_rate: num,
    })
    .optional(),
});

export async function probe(input: string, opts: MediaOptions = {}): Promise<ProbeResult> {
  const { stdout } = await runTool({
    tool: "ffprobe",
    args: ["-print_format", "json", "-show_format", "-show_streams", ...inputGuardArgs(opts.inputFormat), localPath(input)],
    input,
    ...opts,
  });
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch (e) {
    throw new MediaError("failed", `ffprobe printed unreadable JSON for ${describeInput(input)}`, { cause: e });
  }
  const parsed = FfprobeOutput.safeParse(raw);
  if (!parsed.success) throw new MediaError("failed", `unexpected ffprobe output for ${describeInput(input)}: ${parsed.error.message}`);
  const { streams, format } = parsed.data;
  if (!format) throw new MediaError("corrupt", `input is corrupt or not a supported audio/video file: ${describeInput(input)}`);
  const infos: StreamInfo[] = streams.map((s) => ({
    index: s.index,
    type: s.codec_type,
    codec: s.codec_name ?? null,
    sampleRate: s.sample_rate,
    channels: s.channels ?? null,
    startTime: s.start_time,
    duration: s.duration,
  }));
  const audio = infos.find((s) => s.type === "audio") ?? null;
  // ffprobe names a demuxer by all its aliases ("mov,mp4,m4a,3gp,3g2,mj2"); `-f` takes the first.
  const demuxer = format.format_name.split(",")[0]!;
  if (!(SELF_CONTAINED_FORMATS as readonly string[]).includes(demuxer)) {
    throw new MediaError("unsupported_format", `unsupported media format ${format.format_name}: ${describeInput(input)}`);
  }
  return {
    format: format.format_name,
    demuxer,
    duration: nonNegative(format.duration),
    startTime: format.start_time,
    sizeBytes: format.size,
    bitRate: format.bit_rate,
    streams: infos,
    hasAudio: audio !== null,
    hasVideo: infos.some((s) => s.type === "video"),
    audio,
  };
}

function nonNegative(v: number | null): number | null {
  return v === null || v < 0 ? null : v;
}

export type OffsetSource = "stream" | "container" | "first_packet" | "none";

/**
 * The behaviour file's order (§5.2): the audio stream's start time, if not positive the
 * container's, if still not positive the first packet's DTS; otherwise 0. Pure, so the order is
 * unit-tested without crafting files for every case.
 */
export function startOffsetFrom(values: { streamStart: number | null; containerStart: number | null; firstPacketDts: number | null }): {
  seconds: number;
  source: OffsetSource;
} {
  const positive = (v: number | null): v is number => v !== null && Number.isFinite(v) && v > 0;
  if (positive(values.streamStart)) return { seconds: values.streamStart, source: "stream" };
  if (positive(values.containerStart)) return { seconds: values.containerStart, source: "container" };
  if (positive(values.firstPacketDts)) return { seconds: values.firstPacketDts, source: "first_packet" };
  return { seconds: 0, source: "none" };
}

export interface TrackOffset {
  /** Seconds from the recording's start to this track's first audio (≥ 0). */
  seconds: number;
  source: OffsetSource;
}

/**
 * Start offset of a recorded track (e.g. a platform's per-participant WebM). Unlike the reference,
 * an unreadable file is an error (corrupt / no_audio), not a silent 0: the track would fail at
 * transcription anyway, and the error names the real cause.
 */
export async function trackStartOffset(input: string, opts: MediaOptions = {}): Promise<TrackOffset> {
  const info = await probe(input, opts);
  if (!info.audio) throw new MediaError("no_audio", `input has no audio stream: ${describeInput(input)}`);
  const quick = startOffsetFrom({ streamStart: info.audio.startTime, containerStart: info.startTime, firstPacketDts: null });
  if (quick.source !== "none") return quick;
  const { stdout } = await runTool({
    tool: "ffprobe",
    args: [
      "-select_streams",
      `${info.audio.index}`,
      "-show_entries",
      "packet=dts_time",
      "-read_intervals",
      "%+#1",
      "-of",
      "csv=p=0",
      ...inputGuardArgs(info.demuxer),
      localPath(input),
    ],
    input,
    ...opts,
  });
  const dts = Number.parseFloat(stdout.trim().split("\n")[0] ?? "");
  return startOffsetFrom({ streamStart: null, containerStart: null, firstPacketDts: Number.isFinite(dts) ? dts : null });
}

/**
 * Audio duration in ms as the file pipeline measures it (§4.2): the sum of the first audio
 * stream's packet durations, streamed from ffprobe, rounded to 2 decimals. Falls back to the
 * stream's, then the container's duration; 0 when nothing is known. Never NaN, never negative.
 */
export async function audioDurationMs(input: string, opts: MediaOptions = {}): Promise<number> {
  const info = await probe(input, opts);
  if (!info.audio) throw new MediaError("no_audio", `input has no audio stream: ${describeInput(input)}`);
  let sum = 0;
  let pending = "";
  const add = (line: string) => {
    const v = Number.parseFloat(line);
    if (Number.isFinite(v) && v > 0) sum += v;
  };
  await runTool({
    tool: "ffprobe",
    args: [
      "-select_streams",
      `${info.audio.index}`,
      "-show_entries",
      "packet=duration_time",
      "-of",
      "csv=p=0",
      ...inputGuardArgs(info.demuxer),
      localPath(input),
    ],
    input,
    ...opts,
    onStdout: (chunk) => {
      pending += chunk.toString("latin1");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) add(l);
    },
  });
  add(pending);
  const seconds = sum > 0 ? sum : (info.audio.duration ?? info.duration ?? 0);
  return safeMs(seconds * 1000);
}

/** Milliseconds rounded to 2 decimals; anything not finite or negative becomes 0. */
export function safeMs(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) return 0;
  return Math.round(ms * 100) / 100;
}
