// Search tokens computed in the background, a batch per round, so that neither start-up nor the
// write path waits on them and no long transaction holds the table:
// - single-word impact tokens (migrations/projection/0008) for rows written before that migration
//   (the trigger gives every row it writes its own); the search service ranks single words from
//   them once no visible row lacks them;
// - phrase pair tokens (0009) for every transcript that changed, in change_seq order: they cost
//   ~0.7 ms per transcript, too much for the write path. The search service ranks the transcripts
//   past the fill's mark with the tokens' candidates, so a phrase's page is exact meanwhile.
import { runPeriodically, type Logger, type PeriodicJob, type Sql } from "@scribe/kit";

/** Rows per round and kind: about half a second of token computation for transcripts of a few hundred words. */
export const FILL_BATCH = 500;

/**
 * Gives up to `batch` rows their impact tokens and returns how many it did. The fill setting makes
 * the trigger keep each row's change_seq and skip the feed lock: the transcript did not change for
 * the change feed. Rows a live write holds are skipped this round (that write computes their tokens).
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

/**
 * Computes the pair tokens of up to `batch` transcripts past the fill's mark, in change_seq order,
 * and moves the mark to the last of them; returns how many it did (0 also when another replica's
 * fill holds the turn). Change_seq values commit in order (the feed lock), so every transcript up
 * to the mark has its tokens as of its change_seq; one written meanwhile gets a higher one and waits
 * for the next round. When the read model was rebuilt (a new transcript table), the mark starts
 * over, and tokens of transcripts that are gone are dropped.
 */
export async function fillSearchPairs(sql: Sql, batch = FILL_BATCH): Promise<number> {
  return sql.begin(async (tx) => {
    const [turn] = await tx<{ mine: boolean }[]>`select pg_try_advisory_xact_lock(hashtext('scribe:projection:search-pair-fill')) as mine`;
    if (!turn?.mine) return 0;
    const [mark] = await tx<{ current: boolean }[]>`
      select of_table = 'transcript'::regclass as current from transcript_search_pair_fill`;
    if (!mark?.current) {
      await tx`delete from transcript_search_pair p where not exists (select 1 from transcript t where t.id = p.id)`;
      await tx`update transcript_search_pair_fill set of_table = 'transcript'::regclass, filled_through = 0`;
    }
    const [done] = await tx<{ n: number }[]>`
      with next as materialized (
        select id, change_seq, search_vector from transcript
        where change_seq > (select filled_through from transcript_search_pair_fill)
        order by change_seq limit ${batch}),
      written as (
        insert into transcript_search_pair (id, change_seq, tokens)
        select id, change_seq, search_pair_tokens(search_vector) from next
        on conflict (id) do update set change_seq = excluded.change_seq, tokens = excluded.tokens
        returning change_seq),
      marked as (
        update transcript_search_pair_fill set filled_through = (select max(change_seq) from written)
        where exists (select 1 from written))
      select count(*)::int as n from written`;
    return done!.n;
  });
}

const FILLS = { impact: fillSearchImpact, pairs: fillSearchPairs };

export function startSearchImpactFill(sql: Sql, log: Logger, intervalMs = 1000): PeriodicJob {
  const filled = { impact: 0, pairs: 0 };
  return runPeriodically(
    "search token fill",
    intervalMs,
    async () => {
      for (const kind of ["impact", "pairs"] as const) {
        const n = await FILLS[kind](sql);
        if (n === 0) {
          // Pair tokens are filled all the time (every change moves a transcript past the mark): only a backlog is worth a line.
          if (filled[kind] >= FILL_BATCH * 20) log.info({ kind, filled: filled[kind] }, "search tokens caught up");
          filled[kind] = 0;
          continue;
        }
        filled[kind] += n;
        if (filled[kind] % (FILL_BATCH * 20) < n) log.info({ kind, filled: filled[kind] }, "filling search tokens");
      }
    },
    log,
  );
}
