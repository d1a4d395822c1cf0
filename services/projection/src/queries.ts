// Transcript reads over request/reply (api.md §2.9–2.12), answered from the read model with the
// shared access rules (READ for single transcripts, the listing scope for lists).
import {
  canReadTranscript,
  isoformatUtc,
  listingScope,
  pageCount,
  projectionOps,
  renderTranscript,
  topicView,
  wordsPerSpeaker,
  type Caller,
} from "@scribe/contracts";
import { Forbidden, NotFound, Unauthorized, anonymousMayUsePublicRoutes, type RpcServer, type Sql } from "@scribe/kit";
import type { VersionWaiters } from "./await-version";
import type { ProjectionConfig } from "./config";
import { detailMinimal, minimalView, participantView, participantsWithEmail } from "./domain/views";
import { listTranscripts, topicsOf, transcriptById, versionOf, type DetailRow } from "./store";

/** READ(t): 404 for missing or deleted (destroyed included), 403 when the share mode says no. */
async function readable(sql: Sql, id: string, caller: Caller): Promise<DetailRow> {
  const row = await transcriptById(sql, id);
  const facts = row && { user_id: row.user_id, share_mode: row.share_mode, deleted_at: row.deleted_at && isoformatUtc(row.deleted_at) };
  const decision = canReadTranscript(facts, caller);
  if (!decision.ok) throw decision.kind === "not_found" ? NotFound(decision.detail) : Forbidden(decision.detail);
  return row!;
}

export function registerQueries(rpc: RpcServer, sql: Sql, config: ProjectionConfig, waiters: VersionWaiters): void {
  rpc.handle(projectionOps.get, async ({ caller, id, transcript_format }) => {
    const row = await readable(sql, id, caller);
    const topics = await topicsOf(sql, id);
    const participants = participantsWithEmail(row);
    const rendered = renderTranscript(transcript_format, topics, participants, row.multitrack);
    // Action items are part of the single-transcript answer only (decision), null when generation failed.
    return { ...detailMinimal(row), participants, action_items: row.action_items, ...rendered };
  });

  rpc.handle(projectionOps.list, async ({ caller, page, size, ...filters }) => {
    const scope = listingScope(caller, config.PUBLIC_MODE);
    if (caller.userId === null && !anonymousMayUsePublicRoutes(config)) throw Unauthorized();
    // Polling by change_seq is the change feed: deletions stay visible there (as rows with deleted_at).
    const feed = (filters.change_seq_from !== null && filters.change_seq_from !== undefined) || filters.sort_by === "change_seq";
    const { rows, total } = await listTranscripts(sql, { ...filters, scope, feed, limit: size, offset: size * (page - 1) });
    return { items: rows.map((r) => minimalView(r, { feed })), total, page, size, pages: pageCount(total, size) };
  });

  rpc.handle(projectionOps.topics, async ({ caller, id }) => {
    const row = await readable(sql, id, caller);
    return (await topicsOf(sql, id)).map((t) => topicView(t, row.multitrack));
  });

  rpc.handle(projectionOps.topicsWithWords, async ({ caller, id }) => {
    const row = await readable(sql, id, caller);
    return (await topicsOf(sql, id)).map((t) => ({ ...topicView(t, row.multitrack), words: t.words }));
  });

  rpc.handle(projectionOps.topicWordsPerSpeaker, async ({ caller, id, topic_id }) => {
    const row = await readable(sql, id, caller);
    const topic = (await topicsOf(sql, id)).find((t) => t.id === topic_id);
    if (!topic) throw NotFound("Topic not found");
    return { ...topicView(topic, row.multitrack), words_per_speaker: wordsPerSpeaker(topic.words) };
  });

  rpc.handle(projectionOps.participants, async ({ caller, id }) => {
    const row = await readable(sql, id, caller);
    return row.participants.map(participantView);
  });

  rpc.handle(projectionOps.participant, async ({ caller, id, participant_id }) => {
    const row = await readable(sql, id, caller);
    const p = row.participants.find((x) => x.id === participant_id);
    if (!p) throw NotFound("Participant not found");
    return participantView(p);
  });

  rpc.handle(projectionOps.awaitVersion, async ({ id, version, timeout_ms }) =>
    waiters.wait(id, version, timeout_ms, () => versionOf(sql, id)),
  );
}
