// Request/reply handlers of the notifier: config flags, the webhook test, sharing by e-mail, posting
// to the team chat and its directory. Permissions are decided here from the caller: rooms by the
// rooms service's answer, transcripts by the read model's READ rule (projection.get with the caller).
import { randomUUID } from "node:crypto";
import { notifierOps, projectionOps, roomsOps, sharedEmailIncludesLink, type Caller } from "@scribe/contracts";
import {
  BadRequest,
  Forbidden,
  Invalid,
  Unauthorized,
  UpstreamFailed,
  consumeQuotas,
  isAppError,
  quotaExceeded,
  rpcCall,
  type Bus,
  type Clock,
  type Logger,
  type RpcServer,
  type Sql,
} from "@scribe/kit";
import { postOrUpdate } from "./channels/chat";
import { emailContent, MailError, type EmailSender } from "./channels/email";
import type { AttemptResult } from "./channels/types";
import { excerpt } from "./channels/types";
import type { WebhookSender } from "./channels/webhook";
import { ZulipError, type ZulipClient } from "./channels/zulip";
import type { NotifierConfig } from "./config";
import { shareRecipients } from "./domain/share-recipients";
import { zulipMessage } from "./domain/zulip";
import { notifierMetrics } from "./metrics";
import { insertFinishedDelivery, type AttemptRecord } from "./store";

export interface CommandDeps {
  rpc: RpcServer;
  bus: Bus;
  sql: Sql;
  log: Logger;
  config: NotifierConfig & { RPC_TIMEOUT_MS: number };
  webhooks: WebhookSender;
  email: EmailSender | null;
  zulip: ZulipClient | null;
  clock: Clock;
}

const NOT_AUTHORIZED_TO_TEST = "Not authorized to test this room's webhook";

/** Zulip's failures are upstream failures, not the caller's: 502 with what Zulip said. */
function zulipFailure(e: unknown): never {
  if (e instanceof ZulipError) throw UpstreamFailed(e.message, e);
  throw e;
}

export function registerCommands(deps: CommandDeps): void {
  const { rpc, bus, sql, config } = deps;
  const rpcOpts = { timeoutMs: config.RPC_TIMEOUT_MS };

  rpc.handle(notifierOps.config, async () => ({ zulip_enabled: deps.zulip !== null, email_enabled: deps.email !== null }));

  // The room comes from the rooms service, not the notifier's copy: a URL saved a moment ago is
  // the one tested.
  rpc.handle(notifierOps.testWebhook, async ({ caller, room_id }) => {
    let room;
    try {
      room = await rpcCall(bus, roomsOps.get, { caller, id: room_id }, rpcOpts);
    } catch (e) {
      if (isAppError(e) && e.kind === "forbidden") throw Forbidden(NOT_AUTHORIZED_TO_TEST);
      throw e;
    }
    if (caller.userId === null || room.user_id !== caller.userId) throw Forbidden(NOT_AUTHORIZED_TO_TEST);
    return deps.webhooks.test(room, deps.clock());
  });

  rpc.handle(notifierOps.sendEmail, async ({ caller, transcript_id, email }) => {
    // "Email not configured" comes before any access check (reference).
    if (!deps.email) throw BadRequest("Email not configured");
    // Sending mail on request is for signed-in readers: anonymously it was an open relay.
    if (caller.userId === null) throw Unauthorized();
    const recipients = shareRecipients(email, config.EMAIL_SHARE_MAX_RECIPIENTS);
    if (!recipients.ok) throw Invalid([{ loc: ["body", "email"], msg: recipients.msg, type: "value_error" }]);
    const transcript = await deps.email.read(caller, transcript_id);
    const n = recipients.addresses.length;
    const quota = await consumeQuotas(
      sql,
      [
        { key: `email-share:user:${caller.userId}`, limit: config.EMAIL_SHARE_PER_USER_PER_HOUR, windowSeconds: 3600, amount: n },
        {
          key: `email-share:transcript:${transcript_id}`,
          limit: config.EMAIL_SHARE_PER_TRANSCRIPT_PER_HOUR,
          windowSeconds: 3600,
          amount: n,
        },
      ],
      deps.clock(),
    );
    if (!quota.ok) {
      deps.log.warn(
        { userId: caller.userId, transcriptId: transcript_id, limit: quota.key.split(":")[1] },
        "share-by-e-mail rate limit reached",
      );
      throw quotaExceeded("Too many e-mails shared. Try again later.", quota.retryAfterSeconds);
    }
    const content = emailContent(transcript, config.UI_BASE_URL, sharedEmailIncludesLink(transcript));
    let sent = 0;
    // One e-mail per recipient: they do not learn each other's addresses.
    for (const to of recipients.addresses) {
      const started = deps.clock();
      const t0 = performance.now();
      let result: Pick<AttemptResult, "statusCode" | "error" | "excerpt">;
      let ok = false;
      try {
        const info = await deps.email.send(to, content);
        result = { statusCode: null, error: null, excerpt: excerpt(info.response) };
        ok = true;
        sent++;
      } catch (e) {
        const err = e instanceof MailError ? e : new MailError(String(e), null);
        deps.log.warn({ err, transcriptId: transcript_id }, "sharing a transcript by e-mail failed");
        result = { statusCode: err.responseCode, error: err.message, excerpt: null };
      }
      await recordOnRequest(
        sql,
        "email",
        "share",
        transcript_id,
        caller,
        { to, include_link: content.url !== null },
        null,
        started,
        performance.now() - t0,
        result,
        ok,
      );
    }
    return { sent };
  });

  rpc.handle(notifierOps.postZulip, async ({ caller, transcript_id, stream, topic, include_topics }) => {
    if (!deps.zulip) throw BadRequest("Zulip not configured");
    const transcript = await rpcCall(bus, projectionOps.get, { caller, id: transcript_id, transcript_format: "text" }, rpcOpts);
    const topics = include_topics ? await rpcCall(bus, projectionOps.topics, { caller, id: transcript_id }, rpcOpts) : [];
    const content = zulipMessage({ ...transcript, topics, includeTopics: include_topics, uiBaseUrl: config.UI_BASE_URL });
    const started = deps.clock();
    const t0 = performance.now();
    const record = (result: { statusCode: number | null; error: string | null; excerpt: string | null }, ok: boolean) =>
      recordOnRequest(
        sql,
        "zulip",
        "manual_post",
        transcript_id,
        caller,
        { stream, topic },
        { content },
        started,
        performance.now() - t0,
        result,
        ok,
      );
    try {
      const r = await postOrUpdate(sql, deps.zulip, { transcriptId: transcript_id, stream, topic, content }, "invalid_message");
      await record({ statusCode: 200, error: null, excerpt: `message ${r.messageId} ${r.updated ? "updated" : "posted"}` }, true);
    } catch (e) {
      if (e instanceof ZulipError) await record({ statusCode: e.status, error: e.message, excerpt: null }, false);
      zulipFailure(e);
    }
    return null;
  });

  rpc.handle(notifierOps.zulipStreams, async ({ caller }) => {
    if (caller.userId === null) throw Forbidden("Authentication required");
    if (!deps.zulip) throw BadRequest("Zulip not configured");
    return deps.zulip.streams().catch(zulipFailure);
  });

  rpc.handle(notifierOps.zulipTopics, async ({ caller, stream_id }) => {
    if (caller.userId === null) throw Forbidden("Authentication required");
    if (!deps.zulip) throw BadRequest("Zulip not configured");
    return deps.zulip.topics(stream_id).catch(zulipFailure);
  });
}

/** Deliveries made on request are recorded too (one attempt, no retries: the caller sees the outcome). */
async function recordOnRequest(
  sql: Sql,
  channel: "email" | "zulip",
  kind: string,
  transcriptId: string,
  caller: Caller,
  target: Record<string, unknown>,
  payload: unknown,
  started: Date,
  durationMs: number,
  result: Pick<AttemptResult, "statusCode" | "error" | "excerpt">,
  ok: boolean,
): Promise<void> {
  const id = randomUUID();
  const attempt: AttemptRecord = {
    attempt: 0,
    event_id: null,
    started_at: started,
    duration_ms: Math.round(durationMs),
    status_code: result.statusCode,
    error: result.error,
    response_excerpt: result.excerpt,
    outcome: ok ? "delivered" : "failed",
  };
  await insertFinishedDelivery(
    sql,
    {
      id,
      channel,
      kind,
      transcript_id: transcriptId,
      room_id: null,
      run_id: null,
      dedupe_key: `${kind}:${id}`,
      target: { ...target, by: caller.userId },
      payload: payload ?? {},
    },
    attempt,
    ok ? "delivered" : "failed",
  );
  notifierMetrics.attempts.inc({ channel, outcome: attempt.outcome });
  notifierMetrics.deliveries.inc({ channel, status: ok ? "delivered" : "failed" });
}
