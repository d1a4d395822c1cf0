// Transcript reads over request/reply (api.md §2.9–2.12), answered from the read model with the
// shared access rules (READ for single transcripts, the listing scope for lists).
import {
  DOCUMENT_TAG_HEADER,
  GetTranscript,
  PARTICIPANT_USERS_HEADER,
  canReadTranscript,
  documentTag,
  isoformatUtc,
  listingScope,
  pageCount,
  projectionOps,
  renderTranscript,
  tagNamed,
  topicView,
  wordsPerSpeaker,
  type Caller,
} from "@scribe/contracts";
import {
  Forbidden,
  JsonReply,
  NotFound,
  Unauthorized,
  anonymousMayUsePublicRoutes,
  feedPositionSeen,
  type NotifiedWatermark,
  type RpcServer,
  type Sql,
} from "@scribe/kit";
import type { VersionWaiters } from "./await-version";
import type { ProjectionConfig } from "./config";
import { DocumentCache } from "./document-cache";
import { detailMinimal, minimalView, participantView, participantsWithEmail } from "./domain/views";
import { listTranscripts, topicsOf, transcriptById, transcriptStamp, versionOf, type DetailRow, type StampRow } from "./store";

/** READ(t): 404 for missing or deleted (destroyed included), 403 when the share mode says no. */
function assertReadable<R extends Pick<DetailRow, "user_id" | "share_mode" | "deleted_at">>(row: R | null, caller: Caller): R {
  const facts = row && { user_id: row.user_id, share_mode: row.share_mode, deleted_at: row.deleted_at && isoformatUtc(row.deleted_at) };
  const decision = canReadTranscript(facts, caller);
  if (!decision.ok) throw decision.kind === "not_found" ? NotFound(decision.detail) : Forbidden(decision.detail);
  return row!;
}

async function readable(sql: Sql, id: string, caller: Caller): Promise<DetailRow> {
  return assertReadable(await transcriptById(sql, id), caller);
}

/** The single-transcript answer (api.md §2.10), participants without e-mails (the gateway adds them). */
function transcriptDocument(row: DetailRow, topics: Awaited<ReturnType<typeof topicsOf>>, format: Parameters<typeof renderTranscript>[0]) {
  const participants = participantsWithEmail(row);
  const rendered = renderTranscript(format, topics, participants, row.multitrack);
  // Action items are part of the single-transcript answer only (decision), null when generation failed.
  return { ...detailMinimal(row), participants, action_items: row.action_items, ...rendered };
}

/** The document cache's "format" for a transcript's topics with their words. */
const TOPICS_WITH_WORDS = "topics-with-words";

export function registerQueries(
  rpc: RpcServer,
  sql: Sql,
  config: ProjectionConfig,
  waiters: VersionWaiters,
  roomFeed: NotifiedWatermark,
): void {
  rpc.handle(projectionOps.get, async ({ caller, id, transcript_format }) => {
    await feedPositionSeen("room", roomFeed);
    const row = await readable(sql, id, caller);
    return transcriptDocument(row, await topicsOf(sql, id), transcript_format);
  });

  // The hot read: access and the tag from one narrow row; the document itself rendered, validated
  // and serialised once per version (and format) and kept, then sent as text.
  const documents = new DocumentCache(config.TRANSCRIPT_CACHE_MB * 1024 * 1024);
  rpc.handleJson(projectionOps.document, async ({ caller, id, transcript_format, if_none_match }) => {
    const headersOf = (stamp: StampRow, tag: string) => ({
      [DOCUMENT_TAG_HEADER]: tag,
      [PARTICIPANT_USERS_HEADER]: stamp.participant_users,
    });
    // The document shows its room's name: as of the latest room change the caller may know.
    await feedPositionSeen("room", roomFeed);
    const stamp = assertReadable(await transcriptStamp(sql, id), caller);
    const tag = documentTag(stamp, transcript_format);
    if (tagNamed(if_none_match, tag, { prefixOf: true })) return new JsonReply("null", headersOf(stamp, tag));
    const cached = documents.get(`${id}:${tag}`);
    if (cached !== undefined) return new JsonReply(cached, headersOf(stamp, tag));
    // One snapshot for the row, its topics and the tag they are filed under.
    const rendered = await sql.begin("isolation level repeatable read read only", async (tx) => {
      const current = assertReadable(await transcriptStamp(tx, id), caller);
      const row = assertReadable(await transcriptById(tx, id), caller);
      const document = GetTranscript.parse(transcriptDocument(row, await topicsOf(tx, id), transcript_format));
      return { stamp: current, tag: documentTag(current, transcript_format), json: JSON.stringify(document) };
    });
    documents.set(`${id}:${rendered.tag}`, rendered.json);
    return new JsonReply(rendered.json, headersOf(rendered.stamp, rendered.tag));
  });

  rpc.handle(projectionOps.list, async ({ caller, page, size, ...filters }) => {
    const scope = listingScope(caller, config.PUBLIC_MODE);
    if (caller.userId === null && !anonymousMayUsePublicRoutes(config)) throw Unauthorized();
    // Room names and sharing shown and filtered by: as of the latest room change the caller may know.
    await feedPositionSeen("room", roomFeed);
    // Polling by change_seq is the change feed: deletions stay visible there (as rows with deleted_at).
    const feed = (filters.change_seq_from !== null && filters.change_seq_from !== undefined) || filters.sort_by === "change_seq";
    const { rows, total } = await listTranscripts(sql, { ...filters, scope, feed, limit: size, offset: size * (page - 1) });
    return { items: rows.map((r) => minimalView(r, { feed })), total, page, size, pages: pageCount(total, size) };
  });

  rpc.handle(projectionOps.topics, async ({ caller, id }) => {
    const row = await readable(sql, id, caller);
    return (await topicsOf(sql, id)).map((t) => topicView(t, row.multitrack));
  });

  // Every word of the transcript (the web app's transcript page waits for it; ~700 KB for an hour):
  // like the document, validated and serialised once per version and kept, then sent as text that
  // the gateway passes on unparsed.
  rpc.handleJson(projectionOps.topicsWithWords, async ({ caller, id }) => {
    const stamp = assertReadable(await transcriptStamp(sql, id), caller);
    const cached = documents.get(`${id}:${documentTag(stamp, TOPICS_WITH_WORDS)}`);
    if (cached !== undefined) return new JsonReply(cached);
    const rendered = await sql.begin("isolation level repeatable read read only", async (tx) => {
      const current = assertReadable(await transcriptStamp(tx, id), caller);
      const topics = (await topicsOf(tx, id)).map((t) => ({ ...topicView(t, current.multitrack), words: t.words }));
      return { tag: documentTag(current, TOPICS_WITH_WORDS), json: JSON.stringify(projectionOps.topicsWithWords.response.parse(topics)) };
    });
    documents.set(`${id}:${rendered.tag}`, rendered.json);
    return new JsonReply(rendered.json);
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
