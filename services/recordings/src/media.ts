// Storage and ffprobe work of the service: assembling upload chunks into one object (streamed, one
// chunk open at a time), probing a stored object for an audio stream, deleting stored files.
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { LocalStorage, Unavailable, type ObjectStorage } from "@scribe/kit";
import { z } from "zod";

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

const Probe = z.object({
  streams: z.array(z.object({ codec_type: z.string().optional() })).default([]),
  format: z.object({ duration: z.string().optional() }).optional(),
});

export interface ProbeResult {
  hasAudio: boolean;
  durationSeconds: number | null;
}

/**
 * ffprobe the object in place: a file path with the local driver, a short-lived presigned URL with
 * S3 (ffprobe seeks with range requests, so containers with their index at the end work too).
 * Anything ffprobe cannot read is "no audio".
 */
export async function probeObject(ffprobe: string, storage: ObjectStorage, key: string): Promise<ProbeResult> {
  const input = storage instanceof LocalStorage ? storage.filePath(key) : await storage.presignGet(key, { expiresInSeconds: 3600 });
  if (!input) throw new Error(`cannot give ffprobe access to ${storage.bucket}/${key}`);
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const p = spawn(ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", input], {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("error", (e) => reject(Unavailable(`ffprobe could not run: ${e.message}`, e)));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  if (out.code !== 0) return { hasAudio: false, durationSeconds: null };
  const parsed = Probe.safeParse(JSON.parse(out.stdout || "{}"));
  if (!parsed.success) return { hasAudio: false, durationSeconds: null };
  const duration = Number(parsed.data.format?.duration);
  return {
    hasAudio: parsed.data.streams.some((s) => s.codec_type === "audio"),
    durationSeconds: Number.isFinite(duration) && duration >= 0 ? duration : null,
  };
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
