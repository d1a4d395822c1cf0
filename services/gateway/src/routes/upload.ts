// Chunked upload (api.md §2.14 record/upload): the multipart part streams straight into storage at
// the slot the recordings service gives (busboy, never a buffered body parse); the service is then
// told the chunk is stored, and on the last one assembles, checks and hands the file to processing.
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { recordingsOps } from "@scribe/contracts";
import { AppError, Invalid, TooLarge, validationErrors } from "@scribe/kit";
import busboy from "busboy";
import { anonymousUploadQuota } from "../http/anonymous-quota";
import { call, requireUserUnlessPublic, type AppContext, type AppEnv } from "../http/context";

const uploadQuery = (maxChunks: number) =>
  z.object({
    chunk_number: z.coerce.number().int().min(0),
    total_chunks: z.coerce.number().int().min(1).max(maxChunks),
  });
type UploadQuery = z.infer<ReturnType<typeof uploadQuery>>;
/** As published (the coercing schema above would be documented as nullable). */
const UploadQueryDoc = z.object({ chunk_number: z.number().int(), total_chunks: z.number().int() });

const BodySchema = z
  .object({ chunk: z.string().openapi({ format: "binary" }) })
  .openapi("Body_transcript_record_upload_v1_transcripts__transcript_id__record_upload_post");

const missingChunk = () => Invalid([{ loc: ["body", "chunk"], msg: "Field required", type: "missing" }]);

/** Passes at most `max` bytes; one more fails the stream with 413 (the partial object is discarded). */
function limitBytes(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > max) cb(TooLarge("File too large: the upload size limit is reached"));
      else cb(null, chunk);
    },
  });
}

/** Parse the multipart body as it arrives; resolves once the `chunk` part is stored. */
function receiveChunk(c: AppContext, transcriptId: string, q: UploadQuery): Promise<{ key: string; size: number }> {
  const contentType = c.req.header("content-type") ?? "";
  const raw = c.req.raw.body;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { "content-type": contentType }, limits: { files: 1, parts: 20, fieldSize: 64 * 1024 } });
    } catch {
      return reject(missingChunk());
    }
    if (!raw) return reject(missingChunk());
    // A body past the route's limit fails the stream with the 413 itself (http/body-limit.ts).
    const malformed = (e: Error) =>
      e instanceof AppError ? e : Invalid([{ loc: ["body"], msg: `Malformed multipart body: ${e.message}`, type: "value_error" }]);
    let stored: Promise<{ key: string; size: number }> | null = null;
    parser.on("file", (name, file, info) => {
      if (name !== "chunk" || stored) return void file.resume();
      stored = (async () => {
        const slot = await call(c, recordingsOps.uploadBegin, {
          transcript_id: transcriptId,
          chunk_number: q.chunk_number,
          total_chunks: q.total_chunks,
          filename: info.filename ?? "",
        });
        const limited = limitBytes(slot.max_bytes);
        // pipe() forwards data with backpressure but not errors: a client that goes away (busboy
        // destroys the part) must also fail the storage write, or it would wait forever.
        file.once("error", (e) => limited.destroy(e));
        limited.once("error", () => file.unpipe(limited));
        file.pipe(limited);
        const { size } = await c.get("deps").openBucket(slot.bucket).put(slot.key, limited, { contentType: info.mimeType });
        return { key: slot.key, size };
      })();
      // When refused, read (and drop) the rest of the body so the answer reaches the client.
      stored.catch(() => file.resume());
    });
    parser.on("close", () => {
      if (parser.errored) return reject(malformed(parser.errored));
      if (stored) stored.then(resolve, reject);
      else reject(missingChunk());
    });
    // A broken or truncated body destroys the parser (and the part being stored) with the error.
    pipeline(Readable.fromWeb(raw as WebReadableStream), parser).catch((e: Error) => reject(malformed(e)));
  });
}

export function uploadRoutes(app: OpenAPIHono<AppEnv>): void {
  const path = "/v1/transcripts/{transcript_id}/record/upload";
  // Declared for OpenAPI only: the zod-openapi validator would parse (and buffer) the form body.
  app.openAPIRegistry.registerPath({
    method: "post",
    path,
    operationId: "v1_transcript_record_upload",
    tags: ["transcripts"],
    request: {
      params: z.object({ transcript_id: z.string() }),
      query: UploadQueryDoc,
      body: { content: { "multipart/form-data": { schema: BodySchema } }, required: true },
    },
    responses: { 200: { description: "Successful Response", content: { "application/json": { schema: z.unknown() } } } },
  });

  app.post("/v1/transcripts/:transcript_id/record/upload", requireUserUnlessPublic, async (c) => {
    const transcriptId = c.req.param("transcript_id");
    const q = uploadQuery(c.get("deps").config.UPLOAD_MAX_CHUNKS).safeParse(c.req.query());
    if (!q.success) throw Invalid(validationErrors(q.error.issues, ["query"]));
    const { sql, config } = c.get("deps");
    const quota = anonymousUploadQuota(c, sql, config);
    await quota?.admit(q.data.chunk_number);
    const { key, size } = await receiveChunk(c, transcriptId, q.data);
    await quota?.stored(size);
    await call(
      c,
      recordingsOps.uploadChunkStored,
      { transcript_id: transcriptId, chunk_number: q.data.chunk_number, total_chunks: q.data.total_chunks, key, size },
      { timeoutMs: c.get("deps").config.UPLOAD_PROCESSING_TIMEOUT_MS },
    );
    return c.json({ status: "ok" }, 200);
  });
}
