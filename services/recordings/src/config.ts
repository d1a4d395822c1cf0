// Environment of the recordings service: object storage (shared with the gateway), upload limit,
// ffprobe, and how often requested file deletions are worked off.
import { SharedSettings, StorageConfig, envInt } from "@scribe/kit";
import { z } from "zod";

export const RecordingsConfig = StorageConfig.extend({
  UPLOAD_MAX_BYTES: envInt(2 * 1024 ** 3, 1).describe("largest file accepted by the upload API (all chunks together), in bytes"),
  FFPROBE_PATH: z.string().default("ffprobe").describe("ffprobe binary that checks uploaded files for an audio stream"),
  STORAGE_PURGE_INTERVAL_MS: envInt(2000, 10).describe(
    "how often file deletions requested by events (video of rooms without the video option) are carried out",
  ),
  UPLOAD_MAX_CHUNKS: SharedSettings.UPLOAD_MAX_CHUNKS,
  UPLOAD_ABANDONED_AFTER_HOURS: envInt(24, 1).describe(
    "chunks of an upload that received nothing for this many hours are deleted (storage and rows)",
  ),
  UPLOAD_MAX_CHUNK_BYTES: SharedSettings.UPLOAD_MAX_CHUNK_BYTES,
  BASE_URL: SharedSettings.BASE_URL,
});
export type RecordingsConfig = z.infer<typeof RecordingsConfig>;
