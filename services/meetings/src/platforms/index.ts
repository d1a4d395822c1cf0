// The platform adapters of this process, chosen per meeting or room by its platform.
import type { Platform } from "@scribe/contracts";
import { BadRequest, type Logger } from "@scribe/kit";
import type { MeetingsConfig } from "../config";
import { DailyPlatform } from "./daily";
import type { VideoPlatform } from "./types";
import { WherebyPlatform } from "./whereby";

export interface Platforms {
  daily: DailyPlatform;
  whereby: WherebyPlatform;
  /** The adapter for a room's or meeting's platform; "livekit" is accepted by validation but not offered. */
  of(platform: Platform): VideoPlatform;
}

export function createPlatforms(config: MeetingsConfig, log: Logger): Platforms {
  const common = { timeoutMs: config.PLATFORM_API_TIMEOUT_MS, retries: config.PLATFORM_API_RETRIES };
  const daily = new DailyPlatform({
    ...common,
    apiUrl: config.DAILY_API_URL,
    apiKey: config.DAILY_API_KEY,
    subdomain: config.DAILY_SUBDOMAIN,
    webhookSecret: config.DAILY_WEBHOOK_SECRET,
    webhookMaxAgeSeconds: config.DAILY_WEBHOOK_MAX_AGE_SECONDS,
    bucket: config.DAILYCO_STORAGE_AWS_BUCKET_NAME,
    bucketRegion: config.DAILYCO_STORAGE_AWS_REGION,
    bucketRoleArn: config.DAILYCO_STORAGE_AWS_ROLE_ARN,
    log: log.child({ platform: "daily" }),
  });
  const whereby = new WherebyPlatform({
    ...common,
    apiUrl: config.WHEREBY_API_URL,
    apiKey: config.WHEREBY_API_KEY,
    webhookSecret: config.WHEREBY_WEBHOOK_SECRET,
    bucket: config.WHEREBY_STORAGE_AWS_BUCKET_NAME,
    accessKeyId: config.AWS_WHEREBY_ACCESS_KEY_ID,
    accessKeySecret: config.AWS_WHEREBY_ACCESS_KEY_SECRET,
    log: log.child({ platform: "whereby" }),
  });
  return {
    daily,
    whereby,
    of(platform) {
      if (platform === "daily") return daily;
      if (platform === "whereby") return whereby;
      throw BadRequest(`Video platform ${platform} is not supported`);
    },
  };
}
