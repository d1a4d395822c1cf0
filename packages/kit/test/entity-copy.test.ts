import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineOp } from "@scribe/contracts";
import { z } from "zod";
import { copyHandlers, defineEntityCopy } from "../src/consistency/entity-copy";
import { withVersionScope } from "../src/consistency/versions";
import { kitEnv, type KitEnv } from "./helpers";

let env: KitEnv;
beforeAll(async () => {
  env = await kitEnv("entity_copy");
  for (const table of ["thing", "ended_thing"]) {
    await env.sql`create table ${env.sql(table)} (id text primary key, name text not null, version integer not null,
      deleted boolean not null default false, ended_at timestamptz)`;
  }
});
afterAll(async () => env.close());

interface Thing {
  id: string;
  name: string;
  version: number;
  deleted: boolean;
  ended_at: Date | null;
}
interface ThingState {
  id: string;
  name: string;
  version: number;
}

const definition = (table: string) => ({
  kind: "thing",
  table,
  columns: ["id", "name", "version", "deleted"] as const,
  lookups: ["id"] as const,
  rowOf: (t: ThingState, deleted: boolean) => ({ ...t, deleted }),
});
const things = defineEntityCopy<Thing, ThingState, never>(definition("thing"));
const endedThings = defineEntityCopy<Thing, ThingState, never>({ ...definition("ended_thing"), finalAt: "ended_at" });

const at = (iso: string) => new Date(iso);
type Copy = typeof things;
const apply = (copy: Copy, state: ThingState, deleted: boolean, now = at("2026-01-01T00:00:00Z")) =>
  env.sql.begin((tx) => copy.apply(tx, state, deleted, now));
const stored = async (table: string, id: string) => {
  const [row] = await env.sql<Thing[]>`select * from ${env.sql(table)} where id = ${id}`;
  return row;
};

describe("a copy of another service's entity", () => {
  it("takes a newer version and ignores an older one", async () => {
    expect(await apply(things, { id: "a", name: "v2", version: 2 }, false)).toBe(true);
    expect(await apply(things, { id: "a", name: "v1", version: 1 }, false)).toBe(false);
    expect(await stored("thing", "a")).toMatchObject({ name: "v2", version: 2, deleted: false });
  });

  it("lets a deletion win at the same version, and a newer version replace the tombstone", async () => {
    await apply(things, { id: "b", name: "v1", version: 1 }, false);
    expect(await apply(things, { id: "b", name: "v1", version: 1 }, true)).toBe(true);
    expect(await things.findLocal(env.sql, "id", "b")).toBeNull();
    expect(await apply(things, { id: "b", name: "v0", version: 0 }, false)).toBe(false);
    expect(await apply(things, { id: "b", name: "v2", version: 2 }, false)).toBe(true);
    expect(await stored("thing", "b")).toMatchObject({ name: "v2", deleted: false });
  });
});

describe("a copy whose deletion is final (finalAt)", () => {
  it("marks a deletion final at the time it is applied", async () => {
    await apply(endedThings, { id: "c", name: "v1", version: 1 }, false);
    expect(await apply(endedThings, { id: "c", name: "v2", version: 2 }, true, at("2026-02-01T00:00:00Z"))).toBe(true);
    expect(await stored("ended_thing", "c")).toMatchObject({ name: "v2", version: 2, deleted: true, ended_at: at("2026-02-01T00:00:00Z") });
    expect(await endedThings.findLocal(env.sql, "id", "c")).toBeNull();
  });

  it("takes no later state once final, however new its version", async () => {
    await apply(endedThings, { id: "d", name: "v1", version: 1 }, true, at("2026-02-01T00:00:00Z"));
    expect(await apply(endedThings, { id: "d", name: "v5", version: 5 }, false)).toBe(false);
    expect(await apply(endedThings, { id: "d", name: "v6", version: 6 }, true, at("2026-03-01T00:00:00Z"))).toBe(false);
    expect(await stored("ended_thing", "d")).toMatchObject({ name: "v1", version: 1, deleted: true, ended_at: at("2026-02-01T00:00:00Z") });
  });

  it("ends the copy even when the deletion carries an older version than the copy holds", async () => {
    await apply(endedThings, { id: "e", name: "v3", version: 3 }, false);
    expect(await apply(endedThings, { id: "e", name: "v2", version: 2 }, true, at("2026-02-01T00:00:00Z"))).toBe(true);
    expect(await stored("ended_thing", "e")).toMatchObject({ name: "v3", version: 3, deleted: true, ended_at: at("2026-02-01T00:00:00Z") });
  });

  it("ends an entity it never saw before (the deletion is its first event)", async () => {
    expect(await apply(endedThings, { id: "f", name: "v4", version: 4 }, true, at("2026-02-01T00:00:00Z"))).toBe(true);
    expect(await stored("ended_thing", "f")).toMatchObject({ name: "v4", deleted: true, ended_at: at("2026-02-01T00:00:00Z") });
  });
});

describe("a consumer's handlers for a copy (copyHandlers)", () => {
  const handlers = copyHandlers(endedThings, () => at("2026-04-01T00:00:00Z"), { live: ["room.updated"], deleted: ["room.deleted"] });
  const handle = (type: "room.updated" | "room.deleted", state: ThingState) =>
    env.sql.begin((tx) => handlers[type]!(tx, { type, data: state } as never, {} as never));

  it("applies the listed events' data as a live state or a deletion, at the consumer's clock", async () => {
    await handle("room.updated", { id: "h", name: "v1", version: 1 });
    expect(await stored("ended_thing", "h")).toMatchObject({ name: "v1", deleted: false, ended_at: null });
    await handle("room.deleted", { id: "h", name: "v1", version: 2 });
    expect(await stored("ended_thing", "h")).toMatchObject({ version: 2, deleted: true, ended_at: at("2026-04-01T00:00:00Z") });
    expect(handlers["room.created"]).toBeUndefined();
  });

  it("accepts only event types whose data is the copied state", () => {
    // @ts-expect-error this event carries its meeting under `meeting`, not a thing's state
    copyHandlers(things, () => at("2026-04-01T00:00:00Z"), { live: ["meeting.email_recipient.added"], deleted: [] });
  });
});

describe("reading through to the owner", () => {
  const owner = {
    op: defineOp("things.state", z.object({ id: z.string() }), z.object({ id: z.string(), name: z.string(), version: z.number() })),
    request: (_field: string, value: string) => ({ id: value }),
    stateOf: (t: ThingState) => t,
  };
  const owned = defineEntityCopy<Thing, ThingState, typeof owner.op>({ ...definition("thing"), owner });
  const now = at("2026-01-02T00:00:00Z");
  /** Finds `id` in a request that requires nothing, the owner having `name` at version 2. */
  const findAsked = async (opts?: { fromOwner?: boolean }) => {
    let asked = 0;
    const ask = async () => (asked++, { id: "t-owner", name: "renamed", version: 2 });
    const { result } = await withVersionScope([], ask, () => owned.find(env.sql, "id", "t-owner", now, opts));
    return { row: result, asked };
  };

  it("answers from a copy that holds what the request requires, unless asked to ask the owner", async () => {
    await apply(owned, { id: "t-owner", name: "first", version: 1 }, false);
    expect(await findAsked()).toMatchObject({ row: { name: "first", version: 1 }, asked: 0 });
    // A request cannot require a version it did not hear of yet: an act that cannot be undone asks.
    expect(await findAsked({ fromOwner: true })).toMatchObject({ row: { name: "renamed", version: 2 }, asked: 1 });
    expect(await stored("thing", "t-owner")).toMatchObject({ name: "renamed", version: 2 });
  });
});
