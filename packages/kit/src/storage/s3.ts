// S3 driver: any S3-compatible server (AWS, Garage, MinIO, s3rver). Streams both ways: uploads go
// through lib-storage's multipart Upload (bounded part buffers), downloads hand the HTTP body on.
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Readable, Transform } from "node:stream";
import { Invalid, NotFound } from "../errors";
import { contentTypeOf } from "./content-types";
import type { ByteRange, ObjectStorage, StoredObject } from "./types";

export interface S3StorageOptions {
  /** Multipart part size in bytes (S3 minimum 5 MiB); memory per upload is about partSize × queueSize. */
  partSize?: number;
  /** Parts uploaded at once per object. */
  queueSize?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;

function isNotFound(e: unknown): boolean {
  if (e instanceof S3ServiceException) {
    return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata.httpStatusCode === 404;
  }
  return false;
}

/** Counts bytes passing through so `put` can report the stored size without a second request. */
function byteCounter(): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      t.bytes += chunk.length;
      cb(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}

export class S3Storage implements ObjectStorage {
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
    opts: S3StorageOptions = {},
  ) {
    this.partSize = Math.max(MIN_PART_SIZE, opts.partSize ?? 8 * 1024 * 1024);
    this.queueSize = opts.queueSize ?? 2;
  }

  async put(key: string, body: Readable | Uint8Array | string, opts: { contentType?: string } = {}): Promise<{ size: number }> {
    if (!key) throw Invalid('invalid object key ""');
    const contentType = opts.contentType ?? contentTypeOf(key) ?? undefined;
    let size: number;
    let payload: Readable | Uint8Array;
    if (typeof body === "string" || body instanceof Uint8Array) {
      payload = Buffer.from(body);
      size = payload.length;
    } else {
      const counter = byteCounter();
      // Errors of the source must reach the upload, or it would wait forever for more bytes.
      body.once("error", (e) => counter.destroy(e));
      payload = body.pipe(counter);
      size = -1;
    }
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: payload, ContentType: contentType },
      partSize: this.partSize,
      queueSize: this.queueSize,
      // A failed multipart upload is aborted so no orphaned parts are billed.
      leavePartsOnError: false,
    });
    await upload.done();
    if (size < 0) size = (payload as ReturnType<typeof byteCounter>).bytes;
    return { size };
  }

  async get(key: string, opts: { range?: ByteRange } = {}): Promise<{ body: Readable; size: number; contentType: string | null }> {
    const { range } = opts;
    if (range && (range.start < 0 || range.end < range.start)) {
      throw Invalid(`range ${range.start}-${range.end} is not a valid byte range`);
    }
    let res;
    try {
      res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
    } catch (e) {
      if (isNotFound(e)) throw NotFound(`object ${key} not found`);
      if (range && e instanceof S3ServiceException && e.$metadata.httpStatusCode === 416) {
        throw Invalid(`range ${range.start}-${range.end} outside object ${key}`);
      }
      throw e;
    }
    const body = asNodeReadable(res.Body);
    // S3 clamps a range that runs past the end; the interface refuses it like the local driver.
    let size = res.ContentLength ?? 0;
    if (range) {
      const total = /\/(\d+)$/.exec(res.ContentRange ?? "")?.[1];
      size = total === undefined ? size : Number(total);
      if (range.end >= size) {
        body.destroy();
        throw Invalid(`range ${range.start}-${range.end} outside object of ${size} bytes`);
      }
    }
    return { body, size, contentType: res.ContentType ?? contentTypeOf(key) };
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        key,
        size: res.ContentLength ?? 0,
        contentType: res.ContentType ?? contentTypeOf(key),
        lastModified: res.LastModified ?? null,
      };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async delete(keys: string[]): Promise<void> {
    // DeleteObjects takes at most 1000 keys; missing keys count as deleted.
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const res = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = (res.Errors ?? []).filter((e) => e.Code !== "NoSuchKey");
      if (failed.length) {
        throw new Error(`could not delete ${failed.map((e) => `${e.Key}: ${e.Code} ${e.Message}`).join("; ")} from ${this.bucket}`);
      }
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      const res = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of res.Contents ?? []) {
        if (!o.Key) continue;
        yield { key: o.Key, size: o.Size ?? 0, contentType: contentTypeOf(o.Key), lastModified: o.LastModified ?? null };
      }
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }

  async presignGet(
    key: string,
    opts: { expiresInSeconds: number; contentType?: string; contentDisposition?: string },
  ): Promise<string | null> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentType: opts.contentType,
        ResponseContentDisposition: opts.contentDisposition,
      }),
      { expiresIn: opts.expiresInSeconds },
    );
  }
}

export function s3Client(opts: {
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}): S3Client {
  return new S3Client({
    region: opts.region,
    endpoint: opts.endpoint || undefined,
    forcePathStyle: opts.forcePathStyle,
    // Without explicit keys the SDK's default chain applies (environment, instance role, ...).
    credentials:
      opts.accessKeyId && opts.secretAccessKey ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } : undefined,
    // Only checksum when the operation requires it: several S3-compatible servers reject the
    // newer default CRC32 trailers on streamed uploads.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** Readable from a web ReadableStream or a Node one (the SDK body type differs per runtime). */
function asNodeReadable(body: unknown): Readable {
  if (body instanceof Readable) return body;
  return Readable.fromWeb(body as import("node:stream/web").ReadableStream);
}
