// Storage and ffprobe work of the service: assembling upload chunks into one object (streamed, one
// chunk open at a time), probing a stored object for an audio stream, deleting stored files.
import { Readable } from "node:stream";
import { Unavailable, type ObjectStorage } from "@scribe/kit";
import { isMediaError, probe, withScratchCopy } from "@scribe/media";

export type OpenBucket = (bucket: string) => ObjectStorage;

/** Concatenate objects in order into `target` without holding more than a stream buffer. */
export async function concatObjects(storage: ObjectStorage, keys: string[], target: string): Promise<{ size: number }> {
  async function* bytes() {
    for (const key of keys) {
      const { body } = await storage.get(key);
      for await (const chunk of body) yield chunk as Buffer;
    }
  }
  return storage.put(target, Readable.from(bytes(), { objectMode: false }));
}

export type UploadProbe =
  | { kind: "audio"; durationSeconds: number | null }
  | { kind: "no_audio" }
  /** A playlist, file list or other format that is not a self-contained audio/video file. */
  | { kind: "unsupported"; detail: string };

/**
 * ffprobe a private copy of the object (never the stored file in place, never a URL), reading only
 * self-contained containers: an uploaded playlist is refused before any pipeline touches it.
 * Anything else ffprobe cannot read is "no audio".
 */
export async function probeObject(storage: ObjectStorage, key: string): Promise<UploadProbe> {
  try {
    const info = await withScratchCopy(storage, key, (path) => probe(path));
    return info.hasAudio ? { kind: "audio", durationSeconds: info.duration } : { kind: "no_audio" };
  } catch (e) {
    if (isMediaError(e, "unsupported_format")) return { kind: "unsupported", detail: e.message };
    if (isMediaError(e, "timeout") || isMediaError(e, "aborted")) throw Unavailable(`ffprobe could not check the upload: ${e.message}`, e);
    if (isMediaError(e)) return { kind: "no_audio" };
    throw e;
  }
}

/** Delete objects grouped by bucket; a failure is an Unavailable the caller retries. */
export async function deleteObjects(open: OpenBucket, objects: { bucket: string; key: string }[]): Promise<void> {
  const byBucket = new Map<string, string[]>();
  for (const o of objects) byBucket.set(o.bucket, [...(byBucket.get(o.bucket) ?? []), o.key]);
  for (const [bucket, keys] of byBucket) {
    try {
      await open(bucket).delete(keys);
    } catch (e) {
      throw Unavailable(`storage: could not delete from ${bucket}: ${(e as Error).message}`, e);
    }
  }
}
