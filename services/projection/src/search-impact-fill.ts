// Search impact tokens (migrations/projection/0008) for the rows written before that migration: the
// trigger gives every row it writes its tokens, and this job fills the others in the background, a
// batch per round, so that upgrading a large read model neither blocks start-up nor holds a long
// transaction. The search service ranks single words from the tokens once no visible row lacks them.
import { runPeriodically, type Logger, type PeriodicJob, type Sql } from "@scribe/kit";

/** Rows per round: about half a second of token computation for transcripts of a few hundred words. */
export const FILL_BATCH = 500;

/**
 * Gives up to `batch` rows their tokens and returns how many it did. The fill setting makes the
 * trigger keep each row's change_seq and skip the feed lock: the transcript did not change for the
 * change feed. Rows a live write holds are skipped this round (that write computes their tokens).
 */
export async function fillSearchImpact(sql: Sql, batch = FILL_BATCH): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`select set_config('scribe.search_impact_fill', 'on', true)`;
    const filled = await tx`
      update transcript set search_impact = search_impact_tokens(search_vector)
      where id in (select id from transcript where search_impact is null limit ${batch} for update skip locked)`;
    return filled.count;
  });
}

export function startSearchImpactFill(sql: Sql, log: Logger, intervalMs = 1000): PeriodicJob {
  let filled = 0;
  return runPeriodically(
    "search impact fill",
    intervalMs,
    async () => {
      const n = await fillSearchImpact(sql);
      if (n === 0) {
        if (filled > 0) log.info({ filled }, "search impact tokens filled for every transcript");
        filled = 0;
        return;
      }
      filled += n;
      if (filled % (FILL_BATCH * 20) < n) {
        const [left] = await sql<{ n: number }[]>`select count(*)::int as n from transcript where search_impact is null`;
        log.info({ filled, left: left?.n }, "filling search impact tokens");
      }
    },
    log,
  );
}
