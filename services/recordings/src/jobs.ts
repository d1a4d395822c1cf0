// Periodic job: carry out file deletions that event handlers requested (handlers only write rows;
// storage is touched here, so a handler that runs twice deletes nothing twice), then what destroyed
// transcripts left, and uploads abandoned half-way.
import { runPeriodically, type Clock, type Logger, type PeriodicJob, type Sql } from "@scribe/kit";
import { removeAbandonedUploads } from "./abandoned-uploads";
import { purgeRequested } from "./deletions";
import { purgeDestroyed } from "./destroyed";
import type { OpenBucket } from "./media";

export function startPurgeJob(
  sql: Sql,
  open: OpenBucket,
  log: Logger,
  opts: { intervalMs: number; uploadMaxAgeHours: number; clock: Clock },
): PeriodicJob {
  return runPeriodically(
    "recordings.purge",
    opts.intervalMs,
    async () => {
      const n = await purgeRequested(sql, open, { wait: false });
      if (n > 0) log.info({ files: n }, "requested file deletions carried out");
      await purgeDestroyed(sql, open, log);
      await removeAbandonedUploads(sql, open, log, { now: opts.clock(), maxAgeHours: opts.uploadMaxAgeHours });
    },
    log,
  );
}
