// Transcript commands over request/reply (api.md §2.9–2.13 mutations): check access, decide, store
// the change and its events in one transaction with the row locked.
import { randomUUID } from "node:crypto";
import { makeEvent, transcriptionOps, type Caller } from "@scribe/contracts";
import { BadRequest, Invalid, NotFound, emit, type Logger, type RpcServer, type Sql, type Tx } from "@scribe/kit";
import { NOT_FOUND, assertEdit, assertOwner, assertRead, decide } from "./access";
import { SOURCE, persist, persistNew } from "./changes";
import {
  addParticipant,
  applyApiPatch,
  assignSpeaker,
  createdByApi,
  mergeSpeakers,
  processRefusal,
  removeParticipant,
  updateParticipant,
  type Aggregate,
} from "./domain/transcript";
import { refusedUserLinks } from "./domain/participant-links";
import { destroyTranscript } from "./destroy";
import { startProcessing } from "./processing";
import { loadTranscript } from "./store";

const ok = (a: Aggregate) => ({ status: "ok", version: a.state.version });

/** The locked aggregate, soft-deleted ones included (delete, restore and destroy see them). */
async function locked(tx: Tx, id: string): Promise<Aggregate> {
  const a = await loadTranscript(tx, id, { forUpdate: true });
  if (!a) throw NotFound(NOT_FOUND);
  return a;
}

/** Locked and readable by the caller (soft-deleted → 404). */
async function readable(tx: Tx, id: string, caller: Caller): Promise<Aggregate> {
  const a = await loadTranscript(tx, id, { forUpdate: true });
  assertRead(a?.state ?? null, caller);
  return a!;
}

/** Locked, readable and editable (participants, speakers). */
async function editable(tx: Tx, id: string, caller: Caller): Promise<Aggregate> {
  const a = await readable(tx, id, caller);
  assertEdit(a.state, caller);
  return a;
}

export function registerCommands(rpc: RpcServer, sql: Sql, log: Logger): void {
  rpc.handle(transcriptionOps.create, async ({ caller, transcript }) => {
    const a = createdByApi(transcript, randomUUID(), caller.userId, new Date());
    await sql.begin((tx) => persistNew(tx, a));
    log.info({ transcriptId: a.state.id, userId: a.state.user_id }, "transcript created");
    return a.state;
  });

  rpc.handle(transcriptionOps.update, async ({ caller, id, patch }) =>
    sql.begin(async (tx) => {
      const a = await readable(tx, id, caller);
      assertOwner(a.state, caller);
      const refused = refusedUserLinks(a.state.participants, patch.participants ?? [], caller.userId);
      if (refused.length > 0) throw Invalid(refused);
      const { aggregate } = await persist(tx, a, { ...a, state: applyApiPatch(a.state, patch, randomUUID) });
      return aggregate.state;
    }),
  );

  rpc.handle(transcriptionOps.delete, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await locked(tx, id);
      assertOwner(a.state, caller);
      // Already deleted: still ok, the first deleted_at is kept.
      if (a.state.deleted_at !== null) return ok(a);
      const { aggregate } = await persist(tx, a, { ...a, state: { ...a.state, deleted_at: new Date().toISOString() } });
      await emit(tx, makeEvent("transcript.lifecycle.changed", { transcript_id: id, user_id: caller.userId!, action: "deleted" }, { source: SOURCE }));
      log.info({ transcriptId: id }, "transcript soft-deleted");
      return ok(aggregate);
    }),
  );

  rpc.handle(transcriptionOps.restore, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await locked(tx, id);
      if (a.state.deleted_at === null) throw BadRequest("Transcript is not deleted");
      assertOwner(a.state, caller);
      const { aggregate } = await persist(tx, a, { ...a, state: { ...a.state, deleted_at: null } });
      await emit(tx, makeEvent("transcript.lifecycle.changed", { transcript_id: id, user_id: caller.userId!, action: "restored" }, { source: SOURCE }));
      log.info({ transcriptId: id }, "transcript restored");
      return ok(aggregate);
    }),
  );

  rpc.handle(transcriptionOps.destroy, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await locked(tx, id);
      if (a.state.deleted_at === null) throw BadRequest("Transcript must be soft-deleted first");
      assertOwner(a.state, caller);
      const version = await destroyTranscript(tx, a, "user");
      log.info({ transcriptId: id }, "transcript destroyed");
      return { status: "ok", version };
    }),
  );

  rpc.handle(transcriptionOps.process, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await readable(tx, id, caller);
      const refusal = processRefusal(a);
      if (refusal) throw BadRequest(refusal);
      const { aggregate, runId } = await startProcessing(tx, a, log, "process requested");
      return { status: "ok", run_id: runId, version: aggregate.state.version };
    }),
  );

  rpc.handle(transcriptionOps.addParticipant, async ({ caller, id, participant }) =>
    sql.begin(async (tx) => {
      const a = await editable(tx, id, caller);
      const pid = randomUUID();
      const participants = decide(() => addParticipant(a.state.participants, { id: pid, name: participant.name, speaker: participant.speaker }));
      const { aggregate } = await persist(tx, a, { ...a, state: { ...a.state, participants } });
      return { participant: { id: pid, name: participant.name, speaker: participant.speaker }, version: aggregate.state.version };
    }),
  );

  rpc.handle(transcriptionOps.updateParticipant, async ({ caller, id, participant_id, patch }) =>
    sql.begin(async (tx) => {
      const a = await editable(tx, id, caller);
      const { participants, participant } = decide(() => updateParticipant(a.state.participants, participant_id, patch));
      const { aggregate } = await persist(tx, a, { ...a, state: { ...a.state, participants } });
      return { participant: { id: participant.id, name: participant.name, speaker: participant.speaker }, version: aggregate.state.version };
    }),
  );

  rpc.handle(transcriptionOps.deleteParticipant, async ({ caller, id, participant_id }) =>
    sql.begin(async (tx) => {
      const a = await editable(tx, id, caller);
      const { aggregate } = await persist(tx, a, { ...a, state: { ...a.state, participants: removeParticipant(a.state.participants, participant_id) } });
      return ok(aggregate);
    }),
  );

  rpc.handle(transcriptionOps.assignSpeaker, async ({ caller, id, assignment }) =>
    sql.begin(async (tx) => {
      const a = await editable(tx, id, caller);
      const { topics, participants } = decide(() => assignSpeaker(a.topics, a.state.participants, assignment));
      const { aggregate } = await persist(tx, a, { ...a, topics, state: { ...a.state, participants } });
      return ok(aggregate);
    }),
  );

  rpc.handle(transcriptionOps.mergeSpeakers, async ({ caller, id, merge }) =>
    sql.begin(async (tx) => {
      const a = await editable(tx, id, caller);
      const topics = decide(() => mergeSpeakers(a.topics, a.state.participants, merge.speaker_from, merge.speaker_to));
      const { aggregate } = await persist(tx, a, { ...a, topics });
      return ok(aggregate);
    }),
  );
}
