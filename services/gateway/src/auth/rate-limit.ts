// Login rate limit: at most `limit` attempts per key (client address) in a rolling window. Every
// attempt counts, successful ones too (reference); a refused attempt does not extend the wait.
// Counted in the gateway's schema (`login_attempts`), so every replica sees the same attempts.
import type { Sql } from "@scribe/kit";

export class LoginAttemptLimiter {
  constructor(
    private readonly sql: Sql,
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Records an attempt at `now` and says whether it is allowed. */
  async attempt(key: string, now: Date): Promise<boolean> {
    const since = new Date(now.getTime() - this.windowMs);
    // One statement: the upsert locks the key's row, so concurrent attempts on any replica are
    // counted one after the other; the update's condition leaves a refused attempt uncounted.
    const counted = await this.sql`
      insert into login_attempts as l (key, attempts, last_attempt_at) values (${key}, array[${now}::timestamptz], ${now})
      on conflict (key) do update
        set attempts = array(select t from unnest(l.attempts) t where t > ${since}) || ${now}::timestamptz,
            last_attempt_at = ${now}
        where (select count(*) from unnest(l.attempts) t where t > ${since}) < ${this.limit}
      returning 1`;
    // Keys with no attempt left in the window are forgotten (bounded table; the index keeps it cheap).
    await this.sql`delete from login_attempts where last_attempt_at <= ${since}`;
    return counted.length > 0;
  }
}
