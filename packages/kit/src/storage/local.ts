// Local-folder driver (development default): object `<bucket>/<key>` is the file
// `<root>/<bucket>/<key>`; writes go to a temporary file first so readers never see half an object.
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomBytes } from "node:crypto";
import { Invalid, NotFound } from "../errors";
import { contentTypeOf } from "./content-types";
import type { ByteRange, ObjectStorage, StoredObject } from "./types";

export class LocalStorage implements ObjectStorage {
  private readonly dir: string;

  constructor(
    root: string,
    readonly bucket: string,
  ) {
    this.dir = resolve(root, bucket);
  }

  /** Keys are relative paths; anything escaping the bucket folder is refused. */
  private path(key: string): string {
    const p = resolve(this.dir, key);
    if (!key || key.startsWith("/") || !(p + sep).startsWith(this.dir + sep) || p === this.dir) {
      throw Invalid(`invalid object key ${JSON.stringify(key)}`);
    }
    return p;
  }

  /** The file holding an object (tools such as ffprobe read it in place). */
  filePath(key: string): string {
    return this.path(key);
  }

  async put(key: string, body: Readable | Uint8Array | string): Promise<{ size: number }> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString("hex")}.part`;
    try {
      const source = typeof body === "string" || body instanceof Uint8Array ? Readable.from([Buffer.from(body)]) : body;
      await pipeline(source, createWriteStream(tmp));
      await rename(tmp, target);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    return { size: (await stat(target)).size };
  }

  async get(key: string, opts: { range?: ByteRange } = {}) {
    const path = this.path(key);
    const info = await this.head(key);
    if (!info) throw NotFound(`object ${key} not found`);
    const { range } = opts;
    if (range && (range.start < 0 || range.end < range.start || range.end >= info.size)) {
      throw Invalid(`range ${range.start}-${range.end} outside object of ${info.size} bytes`);
    }
    const body = createReadStream(path, range ? { start: range.start, end: range.end } : {});
    return { body, size: info.size, contentType: info.contentType };
  }

  async head(key: string): Promise<StoredObject | null> {
    const s = await stat(this.path(key)).catch(() => null);
    if (!s?.isFile()) return null;
    return { key, size: s.size, contentType: contentTypeOf(key), lastModified: s.mtime };
  }

  async delete(keys: string[]): Promise<void> {
    await Promise.all(keys.map((k) => rm(this.path(k), { force: true })));
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const walk = async function* (dir: string): AsyncGenerator<string> {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const p = join(dir, e.name);
        if (e.isDirectory()) yield* walk(p);
        else if (e.isFile() && !e.name.endsWith(".part")) yield p;
      }
    };
    for await (const file of walk(this.dir)) {
      const key = relative(this.dir, file).split(sep).join("/");
      if (!key.startsWith(prefix)) continue;
      const info = await this.head(key);
      if (info) yield info;
    }
  }

  async presignGet(_key: string, _opts: { expiresInSeconds: number }): Promise<string | null> {
    return null;
  }
}

/** Read a whole small object (JSON metadata, waveforms) into memory. */
export async function readSmallObject(storage: ObjectStorage, key: string, maxBytes = 16 * 1024 * 1024): Promise<Buffer> {
  const { body, size } = await storage.get(key);
  if (size > maxBytes) {
    body.destroy();
    throw Invalid(`object ${key} is ${size} bytes, more than ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
