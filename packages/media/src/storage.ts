// Moving media between object storage and local working files, streamed both ways: ffmpeg needs a
// seekable local file (WebM/MP4 indexes), and no recording is ever held in memory.
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";
import { pipeline } from "node:stream/promises";
import type { ObjectStorage } from "@scribe/kit";

/** Copy object `key` to `path` (through a temporary file, so a partial download never looks complete). */
export async function downloadObject(storage: ObjectStorage, key: string, path: string, opts: { signal?: AbortSignal } = {}): Promise<{ size: number }> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(6).toString("hex")}.part`;
  try {
    const { body, size } = await storage.get(key);
    await pipeline(body, createWriteStream(tmp), opts.signal ? { signal: opts.signal } : {});
    await rename(tmp, path);
    return { size };
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Upload a local file to `key` (streamed). Same key, same content: re-running a step overwrites, never duplicates. */
export async function uploadFile(storage: ObjectStorage, key: string, path: string, contentType?: string): Promise<{ size: number }> {
  return storage.put(key, createReadStream(path), contentType ? { contentType } : {});
}
