// Commands over request/reply: uploads (a slot per chunk, then assembly, probe and recording.ready
// on the last one) and deletions of stored media (internal callers only).
import { randomUUID } from "node:crypto";
import { makeEvent, recordingsOps, transcriptKeys } from "@scribe/contracts";
import { BadRequest, Invalid, TooLarge, emit, type Clock, type RpcServer, type Sql } from "@scribe/kit";
import type { RecordingsConfig } from "./config";
import { SOURCE } from "./consumers";
import { deleteMedia, deleteVideo } from "./deletions";
import { assertInternal, assertRead, type KnownTranscript } from "./domain/access";
import { extensionOf, extensionOfKey, isChunkKey, missingChunks, planUploadRecording } from "./domain/upload";
import { concatObjects, deleteObjects, probeObject, type OpenBucket } from "./media";
import { chunksOf, claimUpload, deleteChunks, hasStoredUpload, insertRecording, releaseUpload, transcriptById, upsertChunk } from "./store";

const tooLarge = (limit: number) => TooLarge(`File too large: uploads are limited to ${limit} bytes`);
const IN_PROGRESS = "There is already an upload in progress";
/** How long an assembly may run before its claim counts as abandoned (a process that died mid-way). */
export const ASSEMBLY_LEASE_MS = 30 * 60_000;
const UNSUPPORTED_FORMAT =
  "Unsupported file format: upload a self-contained audio or video file (WebM, Matroska, MP4, M4A, MOV, Ogg, WAV, MP3, FLAC or AAC), not a playlist or file list";

export function registerCommands(rpc: RpcServer, sql: Sql, open: OpenBucket, config: RecordingsConfig, clock: Clock): void {
  const bucket = config.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME;

  async function uploadable(transcriptId: string, caller: Parameters<typeof assertRead>[1]): Promise<KnownTranscript> {
    const t = await transcriptById(sql, transcriptId);
    assertRead(t, caller);
    if (t.state.locked) throw BadRequest("Transcript is locked");
    if (await hasStoredUpload(sql, transcriptId)) throw BadRequest(IN_PROGRESS);
    return t;
  }

  function checkChunkNumbers(chunk: number, total: number): void {
    if (total > config.UPLOAD_MAX_CHUNKS) {
      throw Invalid([
        { loc: ["query", "total_chunks"], msg: `total_chunks must be at most ${config.UPLOAD_MAX_CHUNKS}`, type: "less_than_equal" },
      ]);
    }
    if (chunk >= total) {
      throw Invalid([{ loc: ["query", "chunk_number"], msg: "chunk_number must be less than total_chunks", type: "value_error" }]);
    }
  }

  rpc.handle(recordingsOps.uploadBegin, async ({ caller, transcript_id, chunk_number, total_chunks, filename }) => {
    checkChunkNumbers(chunk_number, total_chunks);
    await uploadable(transcript_id, caller);
    const others = (await chunksOf(sql, transcript_id)).filter((c) => c.chunk_number !== chunk_number);
    const room = config.UPLOAD_MAX_BYTES - others.reduce((n, c) => n + c.size, 0);
    if (room <= 0) throw tooLarge(config.UPLOAD_MAX_BYTES);
    const maxBytes = Math.min(room, config.UPLOAD_MAX_CHUNK_BYTES);
    return { bucket, key: transcriptKeys.uploadChunk(transcript_id, chunk_number, extensionOf(filename)), max_bytes: maxBytes };
  });

  rpc.handle(recordingsOps.uploadChunkStored, async ({ caller, transcript_id, chunk_number, total_chunks, key, size }, { log }) => {
    checkChunkNumbers(chunk_number, total_chunks);
    if (!isChunkKey(transcript_id, chunk_number, key)) throw Invalid(`${key} is not a chunk key of transcript ${transcript_id}`);
    const t = await uploadable(transcript_id, caller);
    await upsertChunk(sql, { transcript_id, chunk_number, bucket, key, size });
    if (chunk_number < total_chunks - 1) return { status: "chunk_stored" as const, recording_id: null };

    const storage = open(bucket);
    const target = transcriptKeys.upload(transcript_id, extensionOfKey(key));
    // Claim, then join and probe outside any transaction (they take as long as the file is big),
    // then record the outcome: a concurrent last chunk finds the claim and is refused.
    const now = clock();
    const claimed = await sql.begin(async (tx) => {
      if (!(await claimUpload(tx, transcript_id, now, new Date(now.getTime() - ASSEMBLY_LEASE_MS)))) throw BadRequest(IN_PROGRESS);
      if (await hasStoredUpload(tx, transcript_id)) throw BadRequest(IN_PROGRESS);
      const stored = await chunksOf(tx, transcript_id);
      const chunks = stored.filter((c) => c.chunk_number < total_chunks);
      const missing = missingChunks(
        total_chunks,
        chunks.map((c) => c.chunk_number),
      );
      if (missing.length) {
        const more = total_chunks - chunks.length > missing.length ? ", …" : "";
        throw BadRequest(`Upload incomplete: chunk(s) ${missing.join(", ")}${more} missing`);
      }
      const total = chunks.reduce((n, c) => n + c.size, 0);
      if (total > config.UPLOAD_MAX_BYTES) throw tooLarge(config.UPLOAD_MAX_BYTES);
      // Chunks go either way: a refused file is not kept, an accepted one lives on as one object.
      return { chunks, leftovers: stored.map((c) => ({ bucket: c.bucket, key: c.key })) };
    });
    try {
      const started = performance.now();
      const { size: fileSize } = await concatObjects(
        storage,
        claimed.chunks.map((c) => c.key),
        target,
      );
      const probe = await probeObject(storage, target);
      log.info(
        {
          transcriptId: transcript_id,
          bytes: fileSize,
          chunks: claimed.chunks.length,
          ms: Math.round(performance.now() - started),
          probe: probe.kind,
        },
        "upload assembled",
      );
      if (probe.kind !== "audio") {
        await deleteObjects(open, [{ bucket, key: target }, ...claimed.leftovers]);
        await sql.begin(async (tx) => {
          await deleteChunks(tx, transcript_id);
          await releaseUpload(tx, transcript_id);
        });
        throw BadRequest(probe.kind === "unsupported" ? UNSUPPORTED_FORMAT : "File has no audio stream");
      }
      const recordingId = randomUUID();
      const now = clock();
      const plan = planUploadRecording({
        recordingId,
        transcript: t.state,
        bucket,
        key: target,
        size: fileSize,
        durationSeconds: probe.durationSeconds,
        now,
      });
      await sql.begin(async (tx) => {
        await insertRecording(tx, plan.recording, [plan.file]);
        await emit(tx, makeEvent("recording.ready", plan.ready, { source: SOURCE, time: now }));
        await deleteChunks(tx, transcript_id);
        await releaseUpload(tx, transcript_id);
      });
      await deleteObjects(
        open,
        claimed.leftovers.filter((c) => c.key !== target),
      );
      return { status: "done" as const, recording_id: recordingId };
    } finally {
      // Released with the outcome when there is one; after a failure, so the client may try again.
      await releaseUpload(sql, transcript_id).catch((e: unknown) =>
        log.warn({ err: e, transcriptId: transcript_id }, "upload claim not released; it lapses with its lease"),
      );
    }
  });

  rpc.handle(recordingsOps.deleteMedia, async ({ caller, ...req }, { log }) => {
    assertInternal(caller);
    const result = await deleteMedia(sql, open, config, req);
    log.info({ transcriptId: req.transcript_id, parts: req.parts, reason: req.reason, files: result.deleted.length }, "media deleted");
    return result;
  });

  rpc.handle(recordingsOps.deleteVideo, async ({ caller, recording_id }) => {
    assertInternal(caller);
    return deleteVideo(sql, open, recording_id);
  });
}
