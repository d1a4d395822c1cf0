// A service's local copy of another service's entity (rooms in meetings, calendar, notifier, …),
// fed by the owner's events: one table shape (the entity's columns, `version`, `deleted`), one
// version-guarded upsert (a newer version wins; at the same version a deletion wins), deletions
// kept as tombstones so a late, older event cannot bring an entity back (or, with `finalAt`, no
// later event at all). Lookups made while
// handling a request honour read-your-writes (./versions.ts): a copy that is missing or older than
// the request must see is read through from the owner over request/reply and stored; a copy that
// is current costs nothing more than the local query.
import type { EventType, RpcOp, ScribeEvent } from "@scribe/contracts";
import type { z } from "zod";
import type { EventHandlers } from "../bus/consumer";
import type { Db, Tx } from "../db";
import { isAppError } from "../errors";
import { askOwner, requiredVersion } from "./versions";

export interface CopyRow {
  id: string;
  version: number;
  deleted: boolean;
}

export interface EntityCopyDefinition<Row extends CopyRow, State, O extends RpcOp> {
  /** The entity's kind as owners report it (`reportVersion`). */
  kind: string;
  /** The copy's table in the service's schema. */
  table: string;
  /** The columns the copy takes from the owner's state (with id, version and deleted). */
  columns: readonly (keyof Row & string)[];
  /** Columns stored as jsonb (sent as JSON text: postgres.js would send an array as a Postgres array). */
  jsonColumns?: readonly (keyof Row & string)[];
  /** Columns a request may look the entity up by (unique among live rows), e.g. id and name. */
  lookups: readonly (keyof Row & string)[];
  rowOf(state: State, deleted: boolean): CopyRow & Partial<Row>;
  /**
   * A timestamptz column that makes a deletion final: applying a deletion sets it (at `now`, once,
   * whatever the deletion's version) and a row with it set takes no later state, newer or not. For
   * owners whose deletion is an end (a destroyed transcript stays destroyed even when a late event
   * carries a higher version); without it, a newer version replaces a tombstone.
   */
  finalAt?: keyof Row & string;
  /**
   * The owner's operation answering the entity's current state, or null when it no longer exists;
   * without it, `find` answers from the copy alone.
   */
  owner?: { op: O; request(field: string, value: string): z.input<O["request"]>; stateOf(response: z.infer<O["response"]>): State | null };
  /**
   * Work that follows an applied change in the same transaction (e.g. drop what a deleted entity owned);
   * `now` is the time of application, from the service's clock.
   */
  afterApply?(tx: Tx, previous: Row | null, next: Row, now: Date): Promise<void>;
}

export interface EntityCopy<Row extends CopyRow, State> {
  /** Apply an owner's state at `now` unless the copy already holds it or a newer one; true when applied. */
  apply(tx: Tx, state: State, deleted: boolean, now: Date): Promise<boolean>;
  /**
   * The live entity whose `field` is `value`, at least as new as the current request must see:
   * read through from the owner when the copy misses or lags (applied at `now`). `fromOwner`: ask the
   * owner even when the copy looks current, for an act that cannot be undone (a meeting created on a
   * platform) and must not rest on a version the request could not know of yet.
   */
  find(
    db: Db,
    field: Row extends unknown ? keyof Row & string : never,
    value: string,
    now: Date,
    opts?: { fromOwner?: boolean },
  ): Promise<Row | null>;
  /** The live entity from the local copy only (consumers and jobs: no request to honour). */
  findLocal(db: Db, field: keyof Row & string, value: string): Promise<Row | null>;
}

const isTransaction = (db: Db): db is Tx => !("begin" in db);

export function defineEntityCopy<Row extends CopyRow, State, O extends RpcOp>(
  def: EntityCopyDefinition<Row, State, O>,
): EntityCopy<Row, State> {
  const updatable = def.columns.filter((c) => c !== "id");
  const isFinal = (row: Row) => def.finalAt !== undefined && row[def.finalAt] !== null && row[def.finalAt] !== undefined;
  const upsert = async (tx: Tx, state: Record<string, unknown>) => {
    const row = { ...state };
    for (const c of def.jsonColumns ?? []) {
      // null stays SQL NULL (not the JSON value null), as the columns' readers expect.
      if (row[c] !== null && row[c] !== undefined) row[c] = tx`${JSON.stringify(row[c])}::text::jsonb`;
    }
    const assignments = updatable.map((c) => `"${c}" = excluded."${c}"`).join(", ");
    const newer = `"${def.table}".version < excluded.version or ("${def.table}".version = excluded.version and excluded.deleted and not "${def.table}".deleted)`;
    const guard = def.finalAt ? `(${newer}) and "${def.table}"."${def.finalAt}" is null` : newer;
    const rows = await tx`
      insert into ${tx(def.table)} ${tx(row, ...def.columns)}
      on conflict (id) do update set ${tx.unsafe(assignments)}
      where ${tx.unsafe(guard)}
      returning *`;
    return (rows[0] as Row | undefined) ?? null;
  };

  const apply = async (tx: Tx, state: State, deleted: boolean, now: Date) => {
    const row = def.rowOf(state, deleted) as unknown as Row;
    const [previous] = await tx<Row[]>`select * from ${tx(def.table)} where id = ${row.id} for update`;
    if (previous && isFinal(previous)) return false;
    const newer = !previous || previous.version < row.version || (previous.version === row.version && deleted && !previous.deleted);
    let next = newer ? await upsert(tx, row as unknown as Record<string, unknown>) : null;
    if (deleted && def.finalAt) {
      // The end of the entity, whichever version announced it.
      const finalAt: string = def.finalAt;
      const [ended] = await tx<Row[]>`update ${tx(def.table)} set deleted = true, ${tx(finalAt)} = ${now}
        where id = ${row.id} and ${tx(finalAt)} is null returning *`;
      next = ended ?? null;
    }
    if (!next) return false;
    await def.afterApply?.(tx, previous ?? null, next, now);
    return true;
  };

  const assertLookup = (field: string) => {
    if (!(def.lookups as readonly string[]).includes(field)) throw new Error(`${def.table}: ${field} is not a lookup column`);
  };

  const findLocal = async (db: Db, field: string, value: string) => {
    assertLookup(field);
    const [row] = await db<Row[]>`select * from ${db(def.table)} where ${db(field)} = ${value} and not deleted`;
    return row ?? null;
  };

  const find = async (db: Db, field: string, value: string, now: Date, opts: { fromOwner?: boolean } = {}) => {
    const local = await findLocal(db, field, value);
    const required = requiredVersion(def.kind, field, value);
    if (local && local.version >= required && !opts.fromOwner) return local;
    const ask = askOwner();
    const owner = def.owner;
    if (!ask || !owner) return local;
    if (!local && field === "id" && !opts.fromOwner) {
      // Ids are never reused: a tombstone as new as required is the answer, no need to ask.
      const [gone] = await db<Row[]>`select * from ${db(def.table)} where id = ${value} and deleted`;
      if (gone && gone.version >= required) return null;
    }
    let answer: unknown;
    try {
      answer = await ask(owner.op.subject, owner.request(field, value));
    } catch (e) {
      // An owner that cannot be reached leaves the copy as the best answer there is.
      if (isAppError(e) && e.kind === "unavailable") return local;
      throw e;
    }
    const state = owner.stateOf(owner.op.response.parse(answer) as z.infer<O["response"]>);
    // The owner no longer has it: deleted (the tombstone and its consequences come with the event).
    if (state === null) return null;
    if (isTransaction(db)) await apply(db, state, false, now);
    else await db.begin((tx) => apply(tx, state, false, now));
    return findLocal(db, field, value);
  };

  return { apply, find: find as EntityCopy<Row, State>["find"], findLocal };
}

/** The event types whose data is a whole state of the copied entity. */
type StateEventType<State> = { [T in EventType]: ScribeEvent<T>["data"] extends State ? T : never }[EventType];

/**
 * A consumer's handlers that keep a copy: each listed event's data applied as the entity's state,
 * live or deleted, at the time of application (the consumer's clock).
 */
export function copyHandlers<Row extends CopyRow, State>(
  copy: EntityCopy<Row, State>,
  clock: () => Date,
  events: { live: readonly StateEventType<State>[]; deleted: readonly StateEventType<State>[] },
): EventHandlers {
  const handlers: Record<string, (tx: Tx, ev: { data: unknown }) => Promise<void>> = {};
  for (const [types, deleted] of [
    [events.live, false],
    [events.deleted, true],
  ] as const) {
    for (const type of types) handlers[type] = async (tx, ev) => void (await copy.apply(tx, ev.data as State, deleted, clock()));
  }
  return handlers as EventHandlers;
}
