// Mixdown of N tracks into one file, each delayed by its start offset, summed without
// normalisation (amix normalize=0, as the reference does) so a lone speaker keeps full volume.
import { MediaError } from "./errors";
import { probe } from "./probe";
import { alignFilter, encoderArgs, writeOutput, type AudioFormat, type OutputInfo } from "./transcode";
import { inputArgs, type ProgressOptions } from "./tool";

export interface MixInput {
  /** Local path of the track. */
  input: string;
  /** Its demuxer as probed (`ProbeResult.demuxer`). */
  format?: string;
  /** Seconds of silence before this track in the mix (its start offset; 0 for already padded tracks). */
  offsetSeconds: number;
}

export interface MixdownOptions extends ProgressOptions {
  format: AudioFormat;
}

/**
 * The mix runs at the output format's sample rate, or the first track's (the reference detects it
 * from the first decodable track), so amix never resamples between inputs of different rates.
 */
export function mixdownFilter(offsets: number[], sampleRate: number, channels: 1 | 2): string {
  const layout = channels === 1 ? "mono" : "stereo";
  const chains = offsets.map(
    (offset, i) => `[${i}:a:0]${alignFilter(offset)},aformat=sample_fmts=fltp:sample_rates=${sampleRate}:channel_layouts=${layout}[a${i}]`,
  );
  const labels = offsets.map((_, i) => `[a${i}]`).join("");
  return `${chains.join(";")};${labels}amix=inputs=${offsets.length}:duration=longest:normalize=0[mix]`;
}

/** Offsets are applied as given (relative to the recording's start), so word times and the mix share one timeline. */
export async function mixdown(inputs: MixInput[], output: string, opts: MixdownOptions): Promise<OutputInfo> {
  if (inputs.length === 0) throw new MediaError("invalid_argument", "mixdown needs at least one track");
  const first = inputs[0]!;
  const explicitRate = "sampleRate" in opts.format ? opts.format.sampleRate : undefined;
  const sampleRate =
    explicitRate ??
    (await probe(first.input, { signal: opts.signal, timeoutMs: opts.timeoutMs, ...(first.format ? { inputFormat: first.format } : {}) }))
      .audio?.sampleRate ??
    48_000;
  const channels = opts.format.channels ?? 1;
  const filter = mixdownFilter(
    inputs.map((i) => i.offsetSeconds),
    sampleRate,
    channels,
  );
  const format = { ...opts.format, channels } as AudioFormat;
  return writeOutput(
    output,
    (tmp) => [
      ...inputs.flatMap((i) => inputArgs(i.input, i.format)),
      "-filter_complex",
      filter,
      "-map",
      "[mix]",
      ...encoderArgs(format),
      tmp,
    ],
    inputs.map((i) => i.input).join(", "),
    opts,
  );
}
