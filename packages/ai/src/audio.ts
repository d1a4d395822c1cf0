// Audio plumbing shared by the local backends: silence-aligned chunking of long recordings (so no
// backend holds a whole recording in memory), WAV I/O, and running the speech tools. Decoding is
// @scribe/media's (the only package that runs ffmpeg).
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { AppError } from "@scribe/kit";
import { decodePcm, isMediaError } from "@scribe/media";
import type { AudioInput } from "./types";

export const SAMPLE_RATE = 16_000;

export interface ResolvedAudio {
  /** What ffmpeg should read: the local path when there is one, else the URL. */
  source: string;
  path?: string;
  url?: string;
}

export function resolveAudio(input: AudioInput): ResolvedAudio {
  if (typeof input === "string") {
    return /^https?:\/\//i.test(input) ? { source: input, url: input } : { source: input, path: input };
  }
  const source = input.path ?? input.url;
  if (!source) throw new AppError("invalid", "audio input has neither a path nor a URL");
  return { source, ...(input.path ? { path: input.path } : {}), ...(input.url ? { url: input.url } : {}) };
}

/**
 * 16-bit mono samples of `source` at `sampleRate`, decoded by @scribe/media. Input ffmpeg cannot
 * use (missing, corrupt, a refused format) is the caller's bad input (`Invalid`), not an outage.
 */
export async function* decodeSamples(source: string, opts: { sampleRate?: number; signal?: AbortSignal } = {}): AsyncGenerator<Int16Array> {
  try {
    yield* decodePcm(source, opts);
  } catch (e) {
    if (isMediaError(e) && !e.retryable) throw new AppError("invalid", e.message, { cause: e });
    throw e;
  }
}

export interface PcmChunk {
  index: number;
  /** Seconds from the start of the recording to the first sample of this chunk. */
  offset: number;
  samples: Int16Array;
}

/**
 * Cut a PCM stream into chunks of at most `maxSeconds`, each cut placed at the quietest 20 ms
 * within the last `searchSeconds` of the chunk so words are rarely split. At most one chunk
 * (plus one block) is held in memory.
 */
export async function* chunkPcm(
  blocks: AsyncIterable<Int16Array>,
  opts: { sampleRate?: number; maxSeconds: number; searchSeconds?: number },
): AsyncGenerator<PcmChunk> {
  const rate = opts.sampleRate ?? SAMPLE_RATE;
  const max = Math.max(1, Math.round(opts.maxSeconds * rate));
  const search = Math.min(max - 1, Math.round((opts.searchSeconds ?? Math.min(10, opts.maxSeconds / 4)) * rate));
  let buf = new Int16Array(max + rate);
  let len = 0;
  let consumed = 0;
  let index = 0;
  for await (const block of blocks) {
    let pos = 0;
    while (pos < block.length) {
      const take = Math.min(block.length - pos, buf.length - len);
      buf.set(block.subarray(pos, pos + take), len);
      len += take;
      pos += take;
      while (len >= max) {
        const cut = quietestCut(buf, max - search, max, Math.round(rate / 50));
        yield { index: index++, offset: consumed / rate, samples: buf.slice(0, cut) };
        buf.copyWithin(0, cut, len);
        len -= cut;
        consumed += cut;
      }
      if (len === buf.length) {
        const bigger = new Int16Array(buf.length * 2);
        bigger.set(buf);
        buf = bigger;
      }
    }
  }
  if (len > 0) yield { index, offset: consumed / rate, samples: buf.slice(0, len) };
}

/** Index in [from, to] that starts the lowest-energy frame of `frame` samples (pure). */
export function quietestCut(samples: Int16Array, from: number, to: number, frame: number): number {
  let best = to;
  let bestEnergy = Number.POSITIVE_INFINITY;
  for (let start = Math.max(0, from); start + frame <= to; start += frame) {
    let e = 0;
    for (let i = start; i < start + frame; i++) e += samples[i]! * samples[i]!;
    if (e < bestEnergy) {
      bestEnergy = e;
      best = start + (frame >> 1);
    }
  }
  return Math.max(1, best);
}

/** A 16-bit mono PCM WAV file image. */
export function wavBuffer(samples: Int16Array, sampleRate = SAMPLE_RATE): Buffer {
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const h = Buffer.alloc(44);
  h.write("RIFF", 0);
  h.writeUInt32LE(36 + data.length, 4);
  h.write("WAVE", 8);
  h.write("fmt ", 12);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36);
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

export interface PcmAudio {
  sampleRate: number;
  samples: Int16Array;
}

/** Read a 16-bit mono PCM WAV (what flite and our fixtures write); anything else is an error. */
export async function readWav(path: string): Promise<PcmAudio> {
  const file = await readFile(path);
  if (file.toString("ascii", 0, 4) !== "RIFF" || file.toString("ascii", 8, 12) !== "WAVE") {
    throw new AppError("invalid", `${path} is not a WAV file`);
  }
  let pos = 12;
  let sampleRate = 0;
  while (pos + 8 <= file.length) {
    const id = file.toString("ascii", pos, pos + 4);
    const size = file.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === "fmt ") {
      const format = file.readUInt16LE(body);
      const channels = file.readUInt16LE(body + 2);
      const bits = file.readUInt16LE(body + 14);
      if (format !== 1 || channels !== 1 || bits !== 16) {
        throw new AppError("invalid", `${path}: expected 16-bit mono PCM, got format ${format}, ${channels} ch, ${bits} bit`);
      }
      sampleRate = file.readUInt32LE(body + 4);
    } else if (id === "data") {
      // flite writes a data size of 0 or 0xffffffff when streaming; trust the file length then.
      const end = size === 0 || body + size > file.length ? file.length : body + size;
      const samples = new Int16Array((end - body) >> 1);
      Buffer.from(samples.buffer).set(file.subarray(body, body + samples.length * 2));
      return { sampleRate, samples };
    }
    pos = body + size + (size % 2);
  }
  throw new AppError("invalid", `${path} has no data chunk`);
}

/** Run a command to completion, feeding `stdin`; resolves stdout, rejects with stderr on failure. */
export function run(cmd: string, args: readonly string[], opts: { stdin?: Uint8Array; signal?: AbortSignal } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"],
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout!.on("data", (d: Buffer) => out.push(d));
    // Keep the tail: tools print banners first and the reason for failing last.
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      err = (err + d).slice(-4000);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString("utf8"));
      else reject(new Error(`${cmd} exited with ${code}: ${err.trim()}`));
    });
    if (opts.stdin && child.stdin) {
      // EPIPE when the child dies early is reported through 'close' with its stderr instead.
      child.stdin.on("error", () => {});
      child.stdin.end(opts.stdin);
    }
  });
}

/** Run `fn` over the items of `source` with at most `limit` in flight, results in source order. */
export async function mapConcurrent<T, R>(source: AsyncIterable<T>, limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  let i = 0;
  for await (const item of source) {
    if (failure) break;
    const slot = i++;
    const p: Promise<void> = fn(item).then(
      (r) => {
        results[slot] = r;
      },
      (error: unknown) => {
        failure ??= { error };
      },
    );
    const tracked = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= Math.max(1, limit)) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  if (failure) throw (failure as { error: unknown }).error;
  return results;
}
