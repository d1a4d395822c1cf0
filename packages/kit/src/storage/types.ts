// Object storage behind one interface, one instance per bucket; drivers: local folder, S3.
import type { Readable } from "node:stream";

export interface StoredObject {
  key: string;
  size: number;
  contentType: string | null;
  lastModified: Date | null;
}

/** Inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectStorage {
  readonly bucket: string;
  /** Streams `body` into the object (never buffered whole); returns the stored size. */
  put(key: string, body: Readable | Uint8Array | string, opts?: { contentType?: string }): Promise<{ size: number }>;
  /** Throws `NotFound` (kit errors) when the object does not exist; a range past the end is refused. */
  get(key: string, opts?: { range?: ByteRange }): Promise<{ body: Readable; size: number; contentType: string | null }>;
  head(key: string): Promise<StoredObject | null>;
  /** Missing keys are ignored. */
  delete(keys: string[]): Promise<void>;
  list(prefix: string): AsyncIterable<StoredObject>;
  /** A time-limited GET URL, or null when the driver cannot make one (local). */
  presignGet(key: string, opts: { expiresInSeconds: number; contentType?: string; contentDisposition?: string }): Promise<string | null>;
}
