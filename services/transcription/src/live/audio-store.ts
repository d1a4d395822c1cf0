// The live recording's audio in storage: PCM segments written as they fill (so a dead process
// loses at most one segment), assembled into one WAV when the session ends. Segments are plain
// s16le 16 kHz mono, so the WAV is a header followed by the segments in key order, streamed.
import { PassThrough } from "node:stream";
import { transcriptKeys } from "@scribe/contracts";
import type { ObjectStorage } from "@scribe/kit";

export const LIVE_SAMPLE_RATE = 16_000;
const BYTES_PER_SECOND = LIVE_SAMPLE_RATE * 2;

export const pcmMs = (bytes: number) => Math.round((bytes / BYTES_PER_SECOND) * 1000);
export const secondsOfPcm = (seconds: number) => Math.round(seconds * BYTES_PER_SECOND) & ~1;

/** The 44-byte header of a 16 kHz mono s16le WAV holding `dataBytes` of samples. */
export function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "ascii");
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write("WAVEfmt ", 8, "ascii");
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(LIVE_SAMPLE_RATE, 24);
  h.writeUInt32LE(BYTES_PER_SECOND, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36, "ascii");
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** Store segment `seq`, retrying a failing storage a few times (a blip must not lose the audio). */
export async function putSegment(bucket: ObjectStorage, transcriptId: string, sessionId: string, seq: number, pcm: Buffer): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await bucket.put(transcriptKeys.liveSegment(transcriptId, sessionId, seq), pcm, { contentType: "application/octet-stream" });
      return;
    } catch (e) {
      if (attempt >= 4) throw e;
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  }
}

async function segmentsOf(bucket: ObjectStorage, transcriptId: string, sessionId: string) {
  const found = [];
  for await (const o of bucket.list(transcriptKeys.liveSegments(transcriptId, sessionId))) if (o.key.endsWith(".pcm")) found.push(o);
  return found.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** One WAV of every stored segment; null when no audio was stored. */
export async function assembleLiveAudio(
  bucket: ObjectStorage,
  transcriptId: string,
  sessionId: string,
): Promise<{ key: string; size: number; durationMs: number } | null> {
  const segments = await segmentsOf(bucket, transcriptId, sessionId);
  const dataBytes = segments.reduce((n, s) => n + s.size, 0) & ~1;
  if (dataBytes === 0) return null;
  const key = transcriptKeys.liveAudio(transcriptId, sessionId);
  const body = new PassThrough();
  const copy = (async () => {
    body.write(wavHeader(dataBytes));
    let left = dataBytes;
    for (const s of segments) {
      const { body: part } = await bucket.get(s.key);
      for await (const chunk of part as AsyncIterable<Buffer>) {
        const take = chunk.subarray(0, Math.min(chunk.length, left));
        left -= take.length;
        if (take.length && !body.write(take)) await new Promise((r) => body.once("drain", r));
      }
    }
    body.end();
  })();
  copy.catch((e: Error) => body.destroy(e));
  const [{ size }] = await Promise.all([bucket.put(key, body, { contentType: "audio/wav" }), copy]);
  return { key, size, durationMs: pcmMs(dataBytes) };
}

/** The segments once the assembled WAV is the recording (best effort: the transcript's deletion removes leftovers). */
export async function removeSegments(bucket: ObjectStorage, transcriptId: string, sessionId: string): Promise<void> {
  const keys = (await segmentsOf(bucket, transcriptId, sessionId)).map((s) => s.key);
  if (keys.length) await bucket.delete(keys);
}
