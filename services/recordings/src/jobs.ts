// Periodic job: carry out file deletions that event handlers requested (handlers only write rows;
// storage is touched here, so a handler that runs twice deletes nothing twice), then what destroyed
// transcripts left.
import { runPeriodically, type Logger, type PeriodicJob, type Sql } from "@scribe/kit";
import { purgeRequested } from "./deletions";
import { purgeDestroyed } from "./destroyed";
import type { OpenBucket } from "./media";

export function startPurgeJob(sql: Sql, open: OpenBucket, log: Logger, intervalMs: number): PeriodicJob {
  return runPeriodically("recordings.purge", intervalMs, async () => {
    const n = await purgeRequested(sql, open, { wait: false });
    if (n > 0) log.info({ files: n }, "requested file deletions carried out");
    await purgeDestroyed(sql, open, log);
  }, log);
}
