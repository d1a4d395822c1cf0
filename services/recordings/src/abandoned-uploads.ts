// Chunks of uploads that were never finished: removed (objects and rows) once no chunk arrived for
// UPLOAD_ABANDONED_AFTER_HOURS, so a client that stops half-way leaves nothing behind.
import type { Logger, Sql } from "@scribe/kit";
import { deleteObjects, type OpenBucket } from "./media";
import { abandonedUploads, chunksOf, deleteChunks, tryUploadLock } from "./store";

const BATCH = 100;

export async function removeAbandonedUploads(sql: Sql, open: OpenBucket, log: Logger, opts: { now: Date; maxAgeHours: number }): Promise<number> {
  const before = new Date(opts.now.getTime() - opts.maxAgeHours * 3600_000);
  let removed = 0;
  for (const transcriptId of await abandonedUploads(sql, before, BATCH)) {
    await sql.begin(async (tx) => {
      // An upload being assembled right now holds this lock: leave it alone.
      if (!(await tryUploadLock(tx, transcriptId))) return;
      const chunks = await chunksOf(tx, transcriptId);
      await deleteObjects(open, chunks.map((c) => ({ bucket: c.bucket, key: c.key })));
      await deleteChunks(tx, transcriptId);
      removed++;
      log.info({ transcriptId, chunks: chunks.length }, "abandoned upload removed");
    });
  }
  return removed;
}
