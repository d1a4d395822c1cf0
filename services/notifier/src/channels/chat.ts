// Reporting a transcript to the team chat: update the message that reported it before (its id is
// kept per transcript), or post a new one. Posts about one transcript are serialised across
// replicas with a transaction-level advisory lock held for the call.
import type { Sql } from "@scribe/kit";
import { z } from "zod";
import { httpVerdict } from "../domain/retry";
import { lockTranscriptChat, saveZulipMessage, zulipMessageOf, type DeliveryRow } from "../store";
import type { AttemptResult } from "./types";
import { ZulipError, type ZulipClient } from "./zulip";

export const ZulipTarget = z.object({ stream: z.string(), topic: z.string() });
export const ZulipPayload = z.object({ content: z.string() });

export interface ChatMessage {
  transcriptId: string;
  stream: string;
  topic: string;
  content: string;
}

/**
 * `fallback`: when updating the earlier message fails, post a new one on any error (automatic
 * reports) or only when Zulip says the message is gone (manual posts, reference §5.5).
 */
export async function postOrUpdate(
  sql: Sql,
  client: ZulipClient,
  m: ChatMessage,
  fallback: "any" | "invalid_message",
): Promise<{ messageId: number; updated: boolean }> {
  return sql.begin(async (tx) => {
    await lockTranscriptChat(tx, m.transcriptId);
    const earlier = await zulipMessageOf(tx, m.transcriptId);
    if (earlier) {
      try {
        await client.update(earlier.message_id, m.topic, m.content);
        await saveZulipMessage(tx, { ...earlier, topic: m.topic });
        return { messageId: earlier.message_id, updated: true };
      } catch (e) {
        if (!(e instanceof ZulipError) || (fallback === "invalid_message" && !e.invalidMessage)) throw e;
      }
    }
    const messageId = await client.post(m.stream, m.topic, m.content);
    await saveZulipMessage(tx, { transcript_id: m.transcriptId, message_id: messageId, stream: m.stream, topic: m.topic });
    return { messageId, updated: false };
  });
}

/** One attempt of an automatic report. */
export async function attemptChatPost(sql: Sql, client: ZulipClient | null, d: DeliveryRow): Promise<AttemptResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  if (!client)
    return { verdict: "cancel", statusCode: null, error: "team chat is no longer configured", excerpt: null, durationMs: 0, eventId: null };
  const target = ZulipTarget.parse(d.target);
  const { content } = ZulipPayload.parse(d.payload);
  try {
    const r = await postOrUpdate(sql, client, { transcriptId: d.transcript_id, ...target, content }, "any");
    return {
      verdict: "delivered",
      statusCode: 200,
      error: null,
      excerpt: `message ${r.messageId} ${r.updated ? "updated" : "posted"}`,
      durationMs: took(),
      eventId: null,
    };
  } catch (e) {
    if (!(e instanceof ZulipError)) throw e;
    return {
      verdict: e.status === null ? "retryable" : httpVerdict(e.status),
      statusCode: e.status,
      error: e.message,
      excerpt: null,
      durationMs: took(),
      eventId: null,
    };
  }
}
