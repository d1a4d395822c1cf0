// Event consumers. Copies (rooms, meetings) are read models built from the whole history; a
// destroyed transcript cancels what is pending; completions are side effects and start at new events. Handlers only write the notifier's
// tables (deliveries are rows the dispatcher works off), so running one twice sends nothing twice.
import { randomUUID } from "node:crypto";
import { STREAMS, eventToken, roomCopySource, type ScribeEvent } from "@scribe/contracts";
import { copyHandlers, type ServiceRuntime, type Tx } from "@scribe/kit";
import type { EmailPayload } from "./channels/email";
import type { NotifierConfig } from "./config";
import { emailConfigured } from "./domain/email";
import { planCompletion } from "./domain/notifications";
import { zulipConfigured } from "./channels/zulip";
import { notifierMetrics } from "./metrics";
import { cancelPending, insertDelivery, meetingById, meetingCopy, notifyWork, roomById, roomCopy, type NewDelivery } from "./store";
import type { z } from "zod";

export const SOURCE = "scribe/notifier";

/** Deliveries for a completed transcript: the room's webhook, its chat report, the e-mails. */
export async function onCompleted(tx: Tx, ev: ScribeEvent<"transcript.completed">, config: NotifierConfig, now: Date): Promise<void> {
  const { transcript: t, run_id: runId } = ev.data;
  const room = t.room_id ? await roomById(tx, t.room_id) : null;
  const meeting = t.meeting_id ? await meetingById(tx, t.meeting_id) : null;
  const plan = planCompletion(ev.data, room, meeting, {
    emailEnabled: emailConfigured(config),
    zulipEnabled: zulipConfigured(config),
    uiBaseUrl: config.UI_BASE_URL,
  });
  const base = { transcript_id: t.id, room_id: t.room_id, run_id: runId, next_attempt_at: now };
  const rows: NewDelivery[] = [];
  // Every run's completion is a new webhook delivery and a new (or updated) chat report.
  if (plan.webhook) {
    rows.push({
      ...base,
      id: randomUUID(),
      channel: "webhook",
      kind: "transcript.completed",
      dedupe_key: `webhook:${t.id}:${runId}`,
      target: {},
      payload: plan.webhook,
    });
  }
  if (plan.zulip) {
    const { stream, topic, content } = plan.zulip;
    rows.push({
      ...base,
      id: randomUUID(),
      channel: "zulip",
      kind: "auto_post",
      dedupe_key: `zulip:${t.id}:${runId}`,
      target: { stream, topic },
      payload: { content },
    });
  }
  // E-mails go once per transcript and address: reprocessing does not mail everyone again.
  const emailPayload: z.input<typeof EmailPayload> = { transcript_version: t.version, owner_user_id: t.user_id };
  for (const r of plan.emails) {
    rows.push({
      ...base,
      id: randomUUID(),
      channel: "email",
      kind: r.kind,
      dedupe_key: `email:${t.id}:${r.to.toLowerCase()}`,
      target: { to: r.to, include_link: r.include_link },
      payload: emailPayload,
    });
  }
  let created = 0;
  for (const row of rows) {
    if (await insertDelivery(tx, row)) {
      created++;
      notifierMetrics.created.inc({ channel: row.channel, kind: row.kind });
    }
  }
  if (created > 0) await notifyWork(tx);
}

export function registerConsumers(rt: ServiceRuntime<NotifierConfig>): void {
  const { config } = rt;
  rt.consume({
    name: "notifier.rooms",
    stream: "ROOMS",
    deliverPolicy: "all",
    handlers: copyHandlers(roomCopy, rt.clock, roomCopySource.events),
  });

  rt.consume({
    name: "notifier.meetings",
    stream: "MEETINGS",
    deliverPolicy: "all",
    handlers: {
      "meeting.created": async (tx, ev) => void (await meetingCopy.apply(tx, ev.data, false, rt.clock())),
      "meeting.updated": async (tx, ev) => void (await meetingCopy.apply(tx, ev.data, false, rt.clock())),
      "meeting.deactivated": async (tx, ev) => void (await meetingCopy.apply(tx, ev.data, false, rt.clock())),
      "meeting.email_recipient.added": async (tx, ev) => void (await meetingCopy.apply(tx, ev.data.meeting, false, rt.clock())),
      "meeting.deleted": async (tx, ev) => void (await meetingCopy.apply(tx, ev.data, true, rt.clock())),
    },
  });

  rt.consume({
    name: "notifier.transcripts",
    stream: "TRANSCRIPTS",
    deliverPolicy: "all",
    handlers: {
      "transcript.destroyed": async (tx, ev) => {
        // Nothing more about a destroyed transcript leaves Scribe (retention exists for privacy).
        await cancelPending(tx, ev.data.transcript.id, `the transcript was destroyed (${ev.data.reason})`);
      },
    },
  });

  rt.consume({
    name: "notifier.completions",
    stream: "TRANSCRIPTS",
    filterSubject: `${STREAMS.TRANSCRIPTS.context}.${eventToken("transcript.completed")}.*`,
    // Side effects: a new notifier must not notify about every transcript ever completed.
    deliverPolicy: "new",
    handlers: {
      "transcript.completed": async (tx, ev) => onCompleted(tx, ev, config, rt.clock()),
    },
  });
}
