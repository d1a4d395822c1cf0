// Environment of the meetings service. Names follow the reference where it has one (DAILY_*,
// WHEREBY_*, DAILYCO_STORAGE_*, AWS_WHEREBY_*); the API URLs are configurable so tests and the demo
// point at the platform simulators.
import { StorageConfig, envInt } from "@scribe/kit";
import { z } from "zod";

export const MeetingsConfig = z.object({
  DAILY_API_URL: z.url().default("https://api.daily.co/v1").describe("platform A (Daily) REST API base URL"),
  DAILY_API_KEY: z.string().default("").describe("platform A (Daily) API key; meetings on Daily need it"),
  DAILY_SUBDOMAIN: z
    .string()
    .default("")
    .describe("your Daily domain (<subdomain>.daily.co); builds a room URL when the API answer has none"),
  DAILY_WEBHOOK_SECRET: z
    .string()
    .default("")
    .describe("base64 HMAC secret of the Daily webhook (the `hmac` given when creating it); unset = every Daily webhook is refused"),
  DAILY_WEBHOOK_MAX_AGE_SECONDS: envInt(300, 1).describe(
    "Daily webhooks signed further than this from now are refused as replays (the reference accepts any age)",
  ),
  DAILYCO_STORAGE_AWS_BUCKET_NAME: StorageConfig.shape.DAILYCO_STORAGE_AWS_BUCKET_NAME,
  DAILYCO_STORAGE_AWS_REGION: z.string().default("us-east-1").describe("region of the Daily recordings bucket, given to Daily"),
  DAILYCO_STORAGE_AWS_ROLE_ARN: z.string().default("").describe("IAM role Daily assumes to write recordings into the bucket"),
  WHEREBY_API_URL: z.url().default("https://api.whereby.dev/v1").describe("platform B (Whereby) REST API base URL"),
  WHEREBY_API_KEY: z.string().default("").describe("platform B (Whereby) API key; meetings on Whereby need it"),
  WHEREBY_WEBHOOK_SECRET: z.string().default("").describe("Whereby webhook signing secret; unset = every Whereby webhook is refused"),
  WHEREBY_STORAGE_AWS_BUCKET_NAME: StorageConfig.shape.WHEREBY_STORAGE_AWS_BUCKET_NAME,
  AWS_WHEREBY_ACCESS_KEY_ID: z.string().default("").describe("access key Whereby uses to write cloud recordings into its bucket"),
  AWS_WHEREBY_ACCESS_KEY_SECRET: z.string().default("").describe("secret of AWS_WHEREBY_ACCESS_KEY_ID"),
  PLATFORM_API_TIMEOUT_MS: envInt(10_000, 100).describe("timeout of one call to a video platform's API"),
  PLATFORM_API_RETRIES: envInt(2, 0, 5).describe("retries of a video platform call that failed with a network error or a 5xx"),
  MEETING_CREATION_LEASE_MS: envInt(15_000, 300).describe(
    "a replica creating a meeting in a room holds the room's creation claim this long, renewed while the platform answers; a replica that stopped mid-creation holds the room's creates back at most this long",
  ),
  MEETING_JOIN_WINDOW_SECONDS: envInt(300, 0).describe(
    "an on-the-fly meeting nobody has used is deactivated once empty for this long after creation",
  ),
  MEETING_PROCESS_INTERVAL_SECONDS: envInt(60, 0).describe(
    "period of the meeting processing job (presence, deactivation); 0 disables it in this process",
  ),
});
export type MeetingsConfig = z.infer<typeof MeetingsConfig>;
