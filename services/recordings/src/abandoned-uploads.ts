// Chunks of uploads that were never finished: removed (objects and rows) once no chunk arrived for
// UPLOAD_ABANDONED_AFTER_HOURS, so a client that stops half-way leaves nothing behind.
import type { Logger, Sql } from "@scribe/kit";
import { deleteObjects, type OpenBucket } from "./media";
import { ASSEMBLY_LEASE_MS } from "./commands";
import { abandonedUploads, chunksOf, claimUpload, deleteChunks, releaseUpload } from "./store";

const BATCH = 100;

export async function removeAbandonedUploads(
  sql: Sql,
  open: OpenBucket,
  log: Logger,
  opts: { now: Date; maxAgeHours: number },
): Promise<number> {
  const before = new Date(opts.now.getTime() - opts.maxAgeHours * 3600_000);
  let removed = 0;
  for (const transcriptId of await abandonedUploads(sql, before, BATCH)) {
    // Claimed like an assembly (one being assembled right now holds the claim: left alone); the
    // objects are deleted outside any transaction, then the rows with the claim.
    const stale = new Date(opts.now.getTime() - ASSEMBLY_LEASE_MS);
    const chunks = await sql.begin(async (tx) =>
      (await claimUpload(tx, transcriptId, opts.now, stale)) ? chunksOf(tx, transcriptId) : null,
    );
    if (!chunks) continue;
    try {
      await deleteObjects(
        open,
        chunks.map((c) => ({ bucket: c.bucket, key: c.key })),
      );
      await sql.begin(async (tx) => {
        await deleteChunks(tx, transcriptId);
        await releaseUpload(tx, transcriptId);
      });
    } finally {
      await releaseUpload(sql, transcriptId).catch(() => {});
    }
    removed++;
    log.info({ transcriptId, chunks: chunks.length }, "abandoned upload removed");
  }
  return removed;
}
