// The meetings service's settings that point both video platforms at their simulators.
import type { DailySimulator } from "./daily";
import type { WherebySimulator } from "./whereby";

export function platformEnv(daily: DailySimulator, whereby: WherebySimulator): Record<string, string> {
  return {
    DAILY_API_URL: daily.url,
    DAILY_API_KEY: daily.apiKey,
    DAILY_WEBHOOK_SECRET: daily.webhookSecret,
    WHEREBY_API_URL: whereby.url,
    WHEREBY_API_KEY: whereby.apiKey,
    WHEREBY_WEBHOOK_SECRET: whereby.webhookSecret,
  };
}
