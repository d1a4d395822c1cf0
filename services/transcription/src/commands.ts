// Transcript commands over request/reply (api.md §2.9–2.13 mutations): check access, then the
// decider decides and `execute` commits the change and its events in one transaction, the row locked.
import { randomUUID } from "node:crypto";
import { transcriptionOps, type Caller } from "@scribe/contracts";
import { BadRequest, Invalid, NotFound, type Clock, type Logger, type RpcServer, type Sql, type Tx } from "@scribe/kit";
import { NOT_FOUND, assertEdit, assertOwner, assertRead, decided } from "./access";
import { execute, persist, persistNew } from "./changes";
import { decide, loads, type TranscriptCommand } from "./domain/decider";
import { createdByApi, processRefusal, type Aggregate } from "./domain/transcript";
import { refusedUserLinks } from "./domain/participant-links";
import { destroyTranscript } from "./destroy";
import { startProcessing } from "./processing";
import { loadTranscript, type PartsRead } from "./store";

const ok = (a: Aggregate) => ({ status: "ok", version: a.state.version });

/** The locked aggregate, soft-deleted ones included (delete, restore and destroy see them). */
async function locked(tx: Tx, id: string, parts: PartsRead = { topics: false, events: false }): Promise<Aggregate> {
  const a = await loadTranscript(tx, id, { forUpdate: true, ...parts });
  if (!a) throw NotFound(NOT_FOUND);
  return a;
}

/** Locked and readable by the caller (soft-deleted → 404). */
async function readable(tx: Tx, id: string, caller: Caller, parts: PartsRead = { topics: true, events: false }): Promise<Aggregate> {
  const a = await loadTranscript(tx, id, { forUpdate: true, ...parts });
  assertRead(a?.state ?? null, caller);
  return a!;
}

/** Locked, readable and editable (participants, speakers). */
async function editable(tx: Tx, id: string, caller: Caller, parts: PartsRead): Promise<Aggregate> {
  const a = await readable(tx, id, caller, parts);
  assertEdit(a.state, caller);
  return a;
}

/** Decide and commit an editing command (EDIT(t) checked first); returns the stored aggregate. */
async function edit(tx: Tx, id: string, caller: Caller, command: Extract<TranscriptCommand, { now: Date }>): Promise<Aggregate> {
  const a = await editable(tx, id, caller, loads(command));
  return (await decided(() => execute(tx, a, command, command.now))).aggregate!;
}

export function registerCommands(rpc: RpcServer, sql: Sql, log: Logger, clock: Clock): void {
  rpc.handle(transcriptionOps.create, async ({ caller, transcript }) => {
    const now = clock();
    const a = createdByApi(transcript, randomUUID(), caller.userId, now);
    await sql.begin((tx) => persistNew(tx, a, now));
    log.info({ transcriptId: a.state.id, userId: a.state.user_id }, "transcript created");
    return a.state;
  });

  rpc.handle(transcriptionOps.update, async ({ caller, id, patch }) =>
    sql.begin(async (tx) => {
      const a = await readable(tx, id, caller, { topics: false, events: false });
      assertOwner(a.state, caller);
      const refused = refusedUserLinks(a.state.participants, patch.participants ?? [], caller.userId);
      if (refused.length > 0) throw Invalid(refused);
      const newIds = (patch.participants ?? []).map(() => randomUUID());
      const now = clock();
      const { aggregate } = await decided(() => execute(tx, a, { type: "update", patch, newIds, now }, now));
      return aggregate!.state;
    }),
  );

  rpc.handle(transcriptionOps.delete, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await locked(tx, id);
      assertOwner(a.state, caller);
      const now = clock();
      const { aggregate, events } = await decided(() => execute(tx, a, { type: "softDelete", by: caller.userId!, now }, now));
      if (events.length) log.info({ transcriptId: id }, "transcript soft-deleted");
      return ok(aggregate!);
    }),
  );

  // Restore and destroy refuse a transcript that is not deleted before they check the owner.
  rpc.handle(transcriptionOps.restore, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await locked(tx, id);
      const now = clock();
      const events = decided(() => decide({ type: "restore", by: caller.userId ?? "", now }, a));
      assertOwner(a.state, caller);
      const aggregate = await persist(tx, a, events, now);
      log.info({ transcriptId: id }, "transcript restored");
      return ok(aggregate!);
    }),
  );

  rpc.handle(transcriptionOps.destroy, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await locked(tx, id);
      const now = clock();
      const events = decided(() => decide({ type: "destroy", reason: "user", now }, a));
      assertOwner(a.state, caller);
      const version = await destroyTranscript(tx, a, events, now);
      log.info({ transcriptId: id }, "transcript destroyed");
      return { status: "ok", version };
    }),
  );

  rpc.handle(transcriptionOps.process, async ({ caller, id }) =>
    sql.begin(async (tx) => {
      const a = await readable(tx, id, caller, { topics: true, events: false });
      const refusal = processRefusal(a);
      if (refusal) throw BadRequest(refusal);
      const { aggregate, runId } = await startProcessing(tx, a, log, "process requested", clock());
      return { status: "ok", run_id: runId, version: aggregate.state.version };
    }),
  );

  rpc.handle(transcriptionOps.addParticipant, async ({ caller, id, participant }) =>
    sql.begin(async (tx) => {
      const added = { id: randomUUID(), name: participant.name, speaker: participant.speaker };
      const aggregate = await edit(tx, id, caller, { type: "addParticipant", participant: added, now: clock() });
      return { participant: added, version: aggregate.state.version };
    }),
  );

  rpc.handle(transcriptionOps.updateParticipant, async ({ caller, id, participant_id, patch }) =>
    sql.begin(async (tx) => {
      const aggregate = await edit(tx, id, caller, { type: "updateParticipant", participant_id, patch, now: clock() });
      const participant = aggregate.state.participants.find((p) => p.id === participant_id)!;
      return {
        participant: { id: participant.id, name: participant.name, speaker: participant.speaker },
        version: aggregate.state.version,
      };
    }),
  );

  rpc.handle(transcriptionOps.deleteParticipant, async ({ caller, id, participant_id }) =>
    sql.begin(async (tx) => ok(await edit(tx, id, caller, { type: "removeParticipant", participant_id, now: clock() }))),
  );

  rpc.handle(transcriptionOps.assignSpeaker, async ({ caller, id, assignment }) =>
    sql.begin(async (tx) => ok(await edit(tx, id, caller, { type: "assignSpeaker", assignment, now: clock() }))),
  );

  rpc.handle(transcriptionOps.mergeSpeakers, async ({ caller, id, merge }) =>
    sql.begin(async (tx) =>
      ok(await edit(tx, id, caller, { type: "mergeSpeakers", from: merge.speaker_from, to: merge.speaker_to, now: clock() })),
    ),
  );
}
