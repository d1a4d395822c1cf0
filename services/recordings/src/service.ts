// The recordings service: owns recordings and their stored files (platform tracks, uploads, video),
// emits recording.ready, answers where transcript media is after deciding access, deletes media.
import { defineService, openStorage } from "@scribe/kit";
import { registerCommands } from "./commands";
import { RecordingsConfig } from "./config";
import { registerConsumers } from "./consumers";
import { removeAbandonedUploads } from "./abandoned-uploads";
import { startPurgeJob } from "./jobs";
import type { OpenBucket } from "./media";
import { registerQueries } from "./queries";

export const recordingsService = defineService({
  name: "recordings",
  config: RecordingsConfig,
  async start(rt) {
    const { rpc, sql, config, log, onStop } = rt;
    const open: OpenBucket = (bucket) => openStorage(config, bucket);
    registerConsumers(rt);
    registerCommands(rpc, sql, open, config, rt.clock);
    registerQueries(rpc, sql, open, config);
    const job = startPurgeJob(sql, open, log, {
      intervalMs: config.STORAGE_PURGE_INTERVAL_MS,
      uploadMaxAgeHours: config.UPLOAD_ABANDONED_AFTER_HOURS,
      clock: rt.clock,
    });
    onStop(() => job.stop());
    return {
      /** One round of removing abandoned uploads at `now` (tests drive it with their own clock). */
      removeAbandonedUploads: (opts: { now: Date }) =>
        removeAbandonedUploads(sql, open, log, { ...opts, maxAgeHours: config.UPLOAD_ABANDONED_AFTER_HOURS }),
    };
  },
});
