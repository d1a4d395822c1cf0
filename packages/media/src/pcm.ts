// Decoding to raw PCM for the speech backends: 16-bit mono samples at a chosen rate, streamed as
// the consumer pulls them, so no backend holds a whole recording in memory.
import { inputArgs, streamTool, type MediaOptions } from "./tool";

/** What the speech backends read (pocketsphinx refuses anything but 16 kHz). */
export const PCM_SAMPLE_RATE = 16_000;

/**
 * Decode the first audio stream of `input` into 16-bit mono PCM at `sampleRate`, as blocks of
 * samples. An odd trailing byte of one chunk is carried into the next so samples never split.
 */
export async function* decodePcm(input: string, opts: MediaOptions & { sampleRate?: number } = {}): AsyncGenerator<Int16Array> {
  const rate = opts.sampleRate ?? PCM_SAMPLE_RATE;
  let carry: Buffer | null = null;
  const stdout = streamTool({
    tool: "ffmpeg",
    args: [...inputArgs(input, opts.inputFormat), "-map", "0:a:0", "-vn", "-ac", "1", "-ar", String(rate), "-f", "s16le", "pipe:1"],
    input,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
  });
  for await (const chunk of stdout) {
    let buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = null;
    if (buf.length % 2 === 1) {
      carry = buf.subarray(buf.length - 1);
      buf = buf.subarray(0, buf.length - 1);
    }
    if (buf.length === 0) continue;
    // Copy: the Int16Array must be aligned and must not alias a pooled Buffer.
    const samples = new Int16Array(buf.length / 2);
    Buffer.from(samples.buffer).set(buf);
    yield samples;
  }
}
