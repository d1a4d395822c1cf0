// Waveform peaks and levels in one streamed decode: ffmpeg writes mono f32le at a low rate to
// stdout, a reducer keeps one maximum per 10 ms block, and the peaks are cut into exactly
// `segments` points at the end, so the length is right even when the container lies about its duration.
import { describeInput, MediaError } from "./errors";
import { safeMs } from "./probe";
import { inputArgs, runTool, type MediaOptions } from "./tool";

/** The behaviour file's default (§7.3, WAVEFORM_SEGMENTS). */
export const WAVEFORM_SEGMENTS = 255;
/** Peaks do not need more: 8 kHz keeps every audible envelope and keeps the JS loop cheap. */
export const ANALYSIS_SAMPLE_RATE = 8_000;
const BLOCK_SAMPLES = ANALYSIS_SAMPLE_RATE / 100;
/** RMS level below which audio counts as silent: well under speech (-20..-35 dBFS), above a quiet room's noise. */
export const DEFAULT_SILENCE_THRESHOLD_DB = -55;
/** What a level of exactly 0 is reported as, instead of -Infinity (JSON has no infinity). */
export const FLOOR_DB = -120;

/**
 * Streaming reducer: feed it samples, get peaks. Non-finite samples count as 0, so the result
 * never contains NaN whatever the decoder emits.
 */
export class PeakReducer {
  private blocks = new Float32Array(1024);
  private blockCount = 0;
  private current = 0;
  private inBlock = 0;
  private sumSquares = 0;
  private peak = 0;
  samples = 0;

  push(samples: Float32Array): void {
    for (let i = 0; i < samples.length; i++) {
      const raw = samples[i]!;
      const v = Number.isFinite(raw) ? Math.min(1, Math.abs(raw)) : 0;
      if (v > this.current) this.current = v;
      this.sumSquares += v * v;
      if (++this.inBlock === BLOCK_SAMPLES) this.closeBlock();
    }
    this.samples += samples.length;
  }

  private closeBlock(): void {
    if (this.blockCount === this.blocks.length) {
      const grown = new Float32Array(this.blocks.length * 2);
      grown.set(this.blocks);
      this.blocks = grown;
    }
    this.blocks[this.blockCount++] = this.current;
    if (this.current > this.peak) this.peak = this.current;
    this.current = 0;
    this.inBlock = 0;
  }

  /** Exactly `segments` values in [0, 1], normalised by the loudest, rounded to 2 decimals; all zeros for silence or no audio. */
  waveform(segments: number): number[] {
    if (this.inBlock > 0) this.closeBlock();
    const n = this.blockCount;
    const out = new Array<number>(segments).fill(0);
    if (n === 0 || this.peak <= 0) return out;
    for (let s = 0; s < segments; s++) {
      const from = Math.floor((s * n) / segments);
      // Shorter audio than segments: a segment shows the block it falls in rather than a gap.
      const to = Math.max(from + 1, Math.floor(((s + 1) * n) / segments));
      let max = 0;
      for (let b = from; b < to && b < n; b++) if (this.blocks[b]! > max) max = this.blocks[b]!;
      const v = Math.round((max / this.peak) * 100) / 100;
      out[s] = Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
    }
    return out;
  }

  levels(): { peak: number; peakDb: number; rmsDb: number } {
    if (this.inBlock > 0) this.closeBlock();
    const rms = this.samples > 0 ? Math.sqrt(this.sumSquares / this.samples) : 0;
    return { peak: this.peak, peakDb: toDb(this.peak), rmsDb: toDb(rms) };
  }
}

function toDb(linear: number): number {
  if (!(linear > 0)) return FLOOR_DB;
  return Math.max(FLOOR_DB, Math.round(20 * Math.log10(linear) * 100) / 100);
}

export interface AudioAnalysis {
  /** `segments` peak values in [0, 1] (normalised; zeros for silence). */
  waveform: number[];
  /** Decoded duration in ms (0 for empty audio). */
  durationMs: number;
  /** Largest absolute sample, linear 0..1. */
  peak: number;
  peakDb: number;
  rmsDb: number;
  /** No decodable audio at all. */
  empty: boolean;
  /** Empty, or RMS below the silence threshold. */
  silent: boolean;
}

export interface AnalyzeOptions extends MediaOptions {
  segments?: number;
  silenceThresholdDb?: number;
}

/** Decode the first audio stream once and return its waveform peaks and levels. */
export async function analyzeAudio(input: string, opts: AnalyzeOptions = {}): Promise<AudioAnalysis> {
  const segments = opts.segments ?? WAVEFORM_SEGMENTS;
  if (!Number.isInteger(segments) || segments < 1)
    throw new MediaError("invalid_argument", `segments must be a positive integer, got ${segments}`);
  const reducer = new PeakReducer();
  let carry: Buffer | null = null;
  await runTool({
    tool: "ffmpeg",
    args: [
      ...inputArgs(input, opts.inputFormat),
      "-map",
      "0:a:0",
      "-vn",
      "-ac",
      "1",
      "-ar",
      String(ANALYSIS_SAMPLE_RATE),
      "-c:a",
      "pcm_f32le",
      "-f",
      "f32le",
      "pipe:1",
    ],
    input,
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
    onStdout: (chunk) => {
      // Chunks are cut at arbitrary byte offsets: keep the 0–3 bytes of a split float for the next one.
      const buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
      const whole = buf.length - (buf.length % 4);
      carry = whole < buf.length ? Buffer.from(buf.subarray(whole)) : null;
      if (whole === 0) return;
      // Copy into an aligned buffer: a Float32Array view needs a 4-byte-aligned offset.
      const aligned = new Float32Array(whole / 4);
      Buffer.from(aligned.buffer).set(buf.subarray(0, whole));
      reducer.push(aligned);
    },
  });
  const levels = reducer.levels();
  const empty = reducer.samples === 0;
  const threshold = opts.silenceThresholdDb ?? DEFAULT_SILENCE_THRESHOLD_DB;
  return {
    waveform: reducer.waveform(segments),
    durationMs: safeMs((reducer.samples / ANALYSIS_SAMPLE_RATE) * 1000),
    ...levels,
    empty,
    silent: empty || levels.rmsDb < threshold,
  };
}

/** Waveform peaks of the (mixed) audio, §7.3: `segments` values in [0, 1], never NaN. */
export async function waveform(input: string, opts: AnalyzeOptions = {}): Promise<number[]> {
  return (await analyzeAudio(input, opts)).waveform;
}

/** Throws MediaError("silent") for empty or silent audio: the pipelines' clear error for a recording with nothing in it. */
export async function assertAudible(input: string, opts: AnalyzeOptions = {}): Promise<AudioAnalysis> {
  const a = await analyzeAudio(input, opts);
  if (a.silent) {
    throw new MediaError(
      "silent",
      a.empty ? `input has no audio samples: ${describeInput(input)}` : `input is silent (RMS ${a.rmsDb} dBFS): ${describeInput(input)}`,
    );
  }
  return a;
}
