// Environment of the notifier. SMTP_* and ZULIP_* keep the reference's
// names and defaults; timeouts and the schedules' knobs are Scribe's.
import { SharedSettings, envBool, envInt } from "@scribe/kit";
import { z } from "zod";

export const NotifierConfig = z.object({
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  UI_BASE_URL: SharedSettings.UI_BASE_URL,
  ALLOW_PRIVATE_URLS: SharedSettings.ALLOW_PRIVATE_URLS,
  WEBHOOK_TIMEOUT_MS: envInt(30_000, 100, 300_000).describe("timeout of one transcript.completed webhook attempt"),
  WEBHOOK_TEST_TIMEOUT_MS: envInt(10_000, 100, 25_000).describe("timeout of the webhook test (POST /v1/rooms/{room_id}/webhook/test)"),
  SMTP_HOST: z.string().default("").describe("SMTP server; e-mail is enabled when it and SMTP_FROM_EMAIL are set"),
  SMTP_PORT: envInt(587, 1, 65_535).describe("SMTP port (465 = implicit TLS)"),
  SMTP_USERNAME: z.string().default("").describe("SMTP login (none when empty)"),
  SMTP_PASSWORD: z.string().default("").describe("SMTP password"),
  SMTP_FROM_EMAIL: z.string().default("").describe("sender address of transcript e-mails"),
  SMTP_USE_TLS: envBool(true).describe("require STARTTLS (ports other than 465)"),
  SMTP_TIMEOUT_MS: envInt(30_000, 100, 300_000).describe("timeout of connecting to and talking with the SMTP server, per e-mail"),
  ZULIP_REALM: z
    .string()
    .default("")
    .describe("Zulip server host name (called over https; a full http(s):// URL is used as given); enables team chat"),
  ZULIP_API_KEY: z.string().default("").describe("Zulip bot API key"),
  ZULIP_BOT_EMAIL: z.string().default("").describe("Zulip bot e-mail address"),
  ZULIP_TIMEOUT_MS: envInt(10_000, 100, 120_000).describe("timeout of one Zulip API call"),
  NOTIFIER_DISPATCH_INTERVAL_MS: envInt(1000, 0).describe(
    "how often due deliveries are looked for when no new one wakes the dispatcher; 0 disables sending in this process",
  ),
  NOTIFIER_CONCURRENCY: envInt(4, 1, 64).describe("deliveries attempted at once per process"),
  EMAIL_SHARE_MAX_RECIPIENTS: envInt(3, 1, 50).describe("share by e-mail: most addresses in one request (comma-separated)"),
  EMAIL_SHARE_PER_USER_PER_HOUR: envInt(30, 1).describe(
    "share by e-mail: most e-mails (recipients) one user may send per hour; 429 past it",
  ),
  EMAIL_SHARE_PER_TRANSCRIPT_PER_HOUR: envInt(10, 1).describe(
    "share by e-mail: most e-mails (recipients) about one transcript per hour, whoever sends them; 429 past it",
  ),
});
export type NotifierConfig = z.infer<typeof NotifierConfig>;
