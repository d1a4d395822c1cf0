// Media made from nothing (ffmpeg's lavfi sources): test tones and a test picture for the platform
// simulators and demos. The inputs are generated here, not read from anyone's file, so these are
// the only runs without the untrusted-input guard.
import { encoderArgs, writeOutput, type AudioFormat, type OutputInfo } from "./transcode";
import type { ProgressOptions } from "./tool";

/** A sine tone of `seconds` at `freq` Hz, written in `format`. */
export function renderTone(
  output: string,
  opts: ProgressOptions & { seconds: number; freq?: number; sampleRate?: number; format: AudioFormat },
): Promise<OutputInfo> {
  const source = `sine=frequency=${opts.freq ?? 440}:sample_rate=${opts.sampleRate ?? 48_000}:duration=${opts.seconds}`;
  return writeOutput(output, (tmp) => ["-f", "lavfi", "-i", source, ...encoderArgs(opts.format), tmp], "(generated tone)", opts);
}

/** A silent VP8 WebM of ffmpeg's test picture (a platform's video recording without audio). */
export function renderTestVideo(output: string, opts: ProgressOptions & { seconds: number }): Promise<OutputInfo> {
  const source = `testsrc=size=160x120:rate=10:duration=${opts.seconds}`;
  return writeOutput(
    output,
    (tmp) => ["-f", "lavfi", "-i", source, "-an", "-c:v", "libvpx", "-b:v", "100k", "-f", "webm", tmp],
    "(generated test picture)",
    opts,
  );
}
