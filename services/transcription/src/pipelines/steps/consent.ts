// Consent cleanup (§6.1). The meetings service exposes consent only through its events: every
// `meeting.consent.given|withdrawn` carries `any_denial` (does any record of the meeting deny
// consent after this answer), so the latest of them on the MEETINGS stream is the answer.
import { eventSubject, MeetingConsentRecorded, transcriptKeys } from "@scribe/contracts";
import type { Bus, Logger } from "@scribe/kit";
import type { PipelineDeps } from "../deps";
import type { PipelineInput, TranscriptPort } from "../port";

const CONSENT_TYPES = ["meeting.consent.given", "meeting.consent.withdrawn"] as const;

/** Reads the last consent event of the meeting (either type, whichever is newer). */
export function consentFromMeetingEvents(bus: Bus): PipelineDeps["consentDenied"] {
  return async (meetingId) => {
    const stream = bus.stream("MEETINGS");
    let latest: { seq: number; denied: boolean } | null = null;
    for (const type of CONSENT_TYPES) {
      const subject = bus.subject(eventSubject({ stream: "MEETINGS", type }, meetingId));
      let msg;
      try {
        msg = await bus.jsm.streams.getMessage(stream, { last_by_subj: subject });
      } catch (e) {
        // No such message (or no such stream yet): this type says nothing about the meeting.
        if (isNotFound(e)) continue;
        throw e;
      }
      if (!msg) continue;
      const envelope = JSON.parse(new TextDecoder().decode(msg.data)) as { data?: unknown };
      const data = MeetingConsentRecorded.parse(envelope.data);
      if (!latest || msg.seq > latest.seq) latest = { seq: msg.seq, denied: data.any_denial };
    }
    return latest ? latest.denied : false;
  };
}

function isNotFound(e: unknown): boolean {
  const text = e instanceof Error ? `${e.name} ${e.message} ${String((e as { code?: unknown }).code ?? "")}` : String(e);
  return /not found|no message|404|10037|10059/i.test(text);
}

export interface ConsentOutcome {
  checked: boolean;
  denied: boolean;
  deleted: string[];
  errors: string[];
}

/**
 * If consent was denied, delete the source audio (`sourceKeys` in the run's bucket) and the mixed
 * MP3 and waveform; mark `audio_deleted` only when every deletion worked (§6.1).
 */
export async function cleanupConsent(
  deps: PipelineDeps,
  port: TranscriptPort,
  input: PipelineInput,
  runId: string,
  sourceKeys: string[],
  log: Logger,
  signal?: AbortSignal,
): Promise<ConsentOutcome> {
  if (!input.meeting_id) return { checked: false, denied: false, deleted: [], errors: [] };
  const denied = await deps.consentDenied(input.meeting_id, signal);
  if (denied === null) {
    log.warn({ meetingId: input.meeting_id }, "consent of the meeting is not readable; audio kept");
    return { checked: false, denied: false, deleted: [], errors: [] };
  }
  if (!denied) return { checked: true, denied: false, deleted: [], errors: [] };
  const errors: string[] = [];
  const deleted: string[] = [];
  const tryDelete = async (bucket: string, keys: string[]) => {
    if (keys.length === 0) return;
    try {
      await deps.openBucket(bucket).delete(keys);
      deleted.push(...keys.map((k) => `${bucket}/${k}`));
    } catch (e) {
      errors.push(`${bucket}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  await tryDelete(input.bucket, sourceKeys);
  await tryDelete(deps.transcriptsBucket, [transcriptKeys.mp3(input.transcript_id)]);
  if (errors.length === 0) await port.update(input.transcript_id, runId, { audio_deleted: true });
  log.info({ meetingId: input.meeting_id, deleted, errors }, "consent denied: recording audio deleted");
  return { checked: true, denied: true, deleted, errors };
}
