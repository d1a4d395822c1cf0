// Moving media between object storage and local working files, streamed both ways: ffmpeg needs a
// seekable local file (WebM/MP4 indexes), and no recording is ever held in memory.
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { pipeline } from "node:stream/promises";
import type { ObjectStorage } from "@scribe/kit";

/** Copy object `key` to `path` (through a temporary file, so a partial download never looks complete). */
export async function downloadObject(
  storage: ObjectStorage,
  key: string,
  path: string,
  opts: { signal?: AbortSignal } = {},
): Promise<{ size: number }> {
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

/**
 * Run `fn` on a private copy of object `key` in a fresh temporary folder (mode 0700, removed
 * afterwards). Stored media is untrusted: ffmpeg reads only this copy, never a storage path, so
 * nothing a file could name relative to itself is another user's object.
 */
export async function withScratchCopy<T>(
  storage: ObjectStorage,
  key: string,
  fn: (path: string) => Promise<T>,
  opts: { signal?: AbortSignal; root?: string } = {},
): Promise<T> {
  const dir = await mkdtemp(join(opts.root ?? tmpdir(), "scribe-media-"));
  try {
    const path = join(dir, basename(key).replace(/[^a-zA-Z0-9._-]/g, "_") || "input");
    await downloadObject(storage, key, path, opts);
    return await fn(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
