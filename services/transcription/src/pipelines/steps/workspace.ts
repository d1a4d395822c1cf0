// Scratch folders: steps may run on any worker, so nothing local outlives a step. Each attempt
// gets its own folder (a retried or taken-over attempt never sees a half-written file of another).
import { randomBytes } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";

export async function withWorkspace<T>(root: string, label: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = join(root, `${label.replace(/[^a-zA-Z0-9_-]/g, "_")}-${randomBytes(4).toString("hex")}`);
  await mkdir(dir, { recursive: true });
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The extension of a storage key (for ffmpeg's format guess), `bin` when it has none. */
export function extensionOf(key: string): string {
  const base = key.slice(key.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0
    ? base
        .slice(dot + 1)
        .replace(/[^a-zA-Z0-9]/g, "")
        .toLowerCase() || "bin"
    : "bin";
}
