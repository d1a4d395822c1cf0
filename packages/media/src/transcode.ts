// One-input conversions: speech-to-text WAV (16 kHz mono), padding a track by its start offset,
// MP3 encoding. Output is written to a temporary file beside the target and renamed on success,
// so a killed or failed run never leaves a half-written file under the final name.
import { randomBytes } from "node:crypto";
import { rename, rm, stat } from "node:fs/promises";
import { MediaError } from "./errors";
import { safeMs } from "./probe";
import { inputArgs, runTool, type ProgressOptions } from "./tool";

export type AudioFormat =
  /** PCM s16le WAV. */
  | { kind: "wav"; sampleRate?: number; channels?: 1 | 2 }
  /** libmp3lame, constant bitrate. */
  | { kind: "mp3"; bitrateKbps?: number; sampleRate?: number; channels?: 1 | 2 }
  /** Opus in WebM (48 kHz), what the reference's padding service writes. */
  | { kind: "opus"; bitrateKbps?: number; channels?: 1 | 2 }
  /** AAC in MP4 with the index first (what Whereby's recordings are). */
  | { kind: "aac"; bitrateKbps?: number; sampleRate?: number; channels?: 1 | 2 }
  | { kind: "flac"; sampleRate?: number; channels?: 1 | 2 };

/** What speech-to-text backends want (pocketsphinx refuses anything but 16 kHz). */
export const SPEECH_WAV = { kind: "wav", sampleRate: 16_000, channels: 1 } as const satisfies AudioFormat;

export interface OutputInfo {
  /** Duration of the written audio in ms (from ffmpeg's progress report; 0 when empty). */
  durationMs: number;
  sizeBytes: number;
}

/** The longest offset the reference's padding/mixdown services accept (5 hours). */
export const MAX_OFFSET_SECONDS = 18_000;

export function encoderArgs(f: AudioFormat): string[] {
  const rate = "sampleRate" in f && f.sampleRate ? ["-ar", String(f.sampleRate)] : [];
  const channels = f.channels ? ["-ac", String(f.channels)] : [];
  switch (f.kind) {
    case "wav":
      return [...rate, ...channels, "-c:a", "pcm_s16le", "-f", "wav"];
    case "mp3":
      return [...rate, ...channels, "-c:a", "libmp3lame", "-b:a", `${f.bitrateKbps ?? 64}k`, "-f", "mp3"];
    case "opus":
      return ["-ar", "48000", ...channels, "-c:a", "libopus", "-b:a", `${f.bitrateKbps ?? 128}k`, "-f", "webm"];
    case "flac":
      return [...rate, ...channels, "-c:a", "flac", "-f", "flac"];
    case "aac":
      return [...rate, ...channels, "-c:a", "aac", "-b:a", `${f.bitrateKbps ?? 64}k`, "-movflags", "+faststart", "-f", "mp4"];
  }
}

/** adelay wants whole milliseconds; the reference floors (§7.9). */
export function delayMs(offsetSeconds: number): number {
  if (!Number.isFinite(offsetSeconds) || offsetSeconds < 0 || offsetSeconds > MAX_OFFSET_SECONDS) {
    throw new MediaError("invalid_argument", `offset must be between 0 and ${MAX_OFFSET_SECONDS} s, got ${offsetSeconds}`);
  }
  return Math.floor(offsetSeconds * 1000);
}

/**
 * The per-input filter chain: `aresample=async=1` fills timestamp gaps inside a track with silence
 * (platform tracks drop packets while a participant is muted), then the start offset is added.
 */
export function alignFilter(offsetSeconds: number): string {
  const ms = delayMs(offsetSeconds);
  return ms > 0 ? `aresample=async=1,adelay=delays=${ms}:all=1` : "aresample=async=1";
}

export interface TranscodeOptions extends ProgressOptions {
  format: AudioFormat;
  /** Silence added before the audio (seconds), e.g. a track's start offset. */
  offsetSeconds?: number;
}

/** Decode the first audio stream of `input` and write it to `output` in `format`. */
export async function transcode(input: string, output: string, opts: TranscodeOptions): Promise<OutputInfo> {
  const filter = alignFilter(opts.offsetSeconds ?? 0);
  return writeOutput(
    output,
    (tmp) => [...inputArgs(input, opts.inputFormat), "-map", "0:a:0", "-vn", "-sn", "-dn", "-af", filter, ...encoderArgs(opts.format), tmp],
    input,
    opts,
  );
}

/** 16 kHz mono PCM WAV for speech-to-text, optionally shifted by a start offset. */
export function toSpeechWav(input: string, output: string, opts: ProgressOptions & { offsetSeconds?: number } = {}): Promise<OutputInfo> {
  return transcode(input, output, { ...opts, format: SPEECH_WAV });
}

/** Pad a track with `offsetSeconds` of leading silence so it lines up with the recording's start. */
export function padTrack(
  input: string,
  output: string,
  offsetSeconds: number,
  opts: ProgressOptions & { format?: AudioFormat } = {},
): Promise<OutputInfo> {
  return transcode(input, output, { ...opts, format: opts.format ?? SPEECH_WAV, offsetSeconds });
}

/** MP3 at the input's sample rate unless given (the reference keeps the source rate). */
export function encodeMp3(
  input: string,
  output: string,
  opts: ProgressOptions & { bitrateKbps?: number; sampleRate?: number; channels?: 1 | 2 } = {},
): Promise<OutputInfo> {
  const format: AudioFormat = { kind: "mp3", bitrateKbps: opts.bitrateKbps ?? 64 };
  if (opts.sampleRate) format.sampleRate = opts.sampleRate;
  if (opts.channels) format.channels = opts.channels;
  return transcode(input, output, { ...opts, format });
}

/** Run ffmpeg writing a temporary file, then rename it to `output`; remove it on any failure. */
export async function writeOutput(
  output: string,
  args: (tmpPath: string) => string[],
  inputForErrors: string,
  opts: ProgressOptions,
): Promise<OutputInfo> {
  const tmp = `${output}.${randomBytes(6).toString("hex")}.part`;
  try {
    const run = await runTool({ tool: "ffmpeg", args: ["-y", ...args(tmp)], input: inputForErrors, progress: true, ...opts });
    const { size } = await stat(tmp);
    await rename(tmp, output);
    return { durationMs: safeMs((run.outSeconds ?? 0) * 1000), sizeBytes: size };
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
