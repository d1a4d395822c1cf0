// Rate limits and quotas shared by every replica: fixed windows counted in the service's own
// PostgreSQL schema (table `quota_usage`, from the shared `_quota` migrations the service opts into
// with `sharedMigrations: [QUOTA_MIGRATIONS]`).
import type { Db, Sql } from "./db";
import { AppError } from "./errors";

/** Folder under migrations/ with the quota table; name it in a service definition's `sharedMigrations`. */
export const QUOTA_MIGRATIONS = "_quota";

export interface QuotaRule {
  /** What is counted, e.g. `email:user:<id>`. */
  key: string;
  /** Most that may be used in one window. */
  limit: number;
  windowSeconds: number;
  /** How much this use takes (1 for a request, bytes for a size quota). 0 only checks that some is left. */
  amount: number;
}

export type QuotaOutcome = { ok: true } | { ok: false; key: string; retryAfterSeconds: number };

function windowOf(rule: QuotaRule, now: Date): { start: Date; end: Date } {
  const ms = rule.windowSeconds * 1000;
  const start = Math.floor(now.getTime() / ms) * ms;
  return { start: new Date(start), end: new Date(start + ms) };
}

/**
 * Takes `amount` from every rule's current window, all or nothing: when one would pass its limit
 * nothing is counted and the answer says when that window ends.
 */
export async function consumeQuotas(sql: Sql, rules: QuotaRule[], now: Date): Promise<QuotaOutcome> {
  let refused: QuotaOutcome = { ok: true };
  await sql
    .begin(async (tx) => {
      await tx`delete from quota_usage where expires_at < ${now}`;
      for (const rule of rules) {
        const { start, end } = windowOf(rule, now);
        const [row] = await tx<{ used: string }[]>`
          insert into quota_usage (key, window_start, expires_at, used) values (${rule.key}, ${start}, ${end}, ${rule.amount})
          on conflict (key, window_start) do update set used = quota_usage.used + excluded.used
          returning used`;
        const used = Number(row!.used);
        const over = rule.amount === 0 ? used >= rule.limit : used > rule.limit;
        if (over) {
          refused = { ok: false, key: rule.key, retryAfterSeconds: Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000)) };
          throw refusal;
        }
      }
    })
    .catch((e: unknown) => {
      if (e !== refusal) throw e;
    });
  return refused;
}

const refusal = new Error("quota refused");

/** Adds `amount` to the rule's current window whatever the limit (usage known only afterwards, e.g. bytes stored). */
export async function recordUsage(sql: Db, rule: Omit<QuotaRule, "limit">, now: Date): Promise<void> {
  const { start, end } = windowOf({ ...rule, limit: 0 }, now);
  await sql`insert into quota_usage (key, window_start, expires_at, used) values (${rule.key}, ${start}, ${end}, ${rule.amount})
    on conflict (key, window_start) do update set used = quota_usage.used + excluded.used`;
}

/** 429 with the seconds until the window ends (the gateway sends them as Retry-After). */
export function quotaExceeded(detail: string, retryAfterSeconds: number): AppError {
  return new AppError("rate_limited", detail, { retryAfterSeconds });
}
