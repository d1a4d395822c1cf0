// A database as operators run it: a role of its own (not a superuser) with a password, over TCP,
// given in DATABASE_URL with characters that must be percent-encoded. Every service migrates its
// schema as that role and serves the API. (The local test server trusts 127.0.0.1, so it does not
// check the password itself; what this proves is that the URL, role and privileges carry through.)
import { randomBytes } from "node:crypto";
import { ok } from "@scribe/client";
import postgres from "postgres";
import { TEST_ADMIN_URL } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";

const role = `scribe_pw_${randomBytes(4).toString("hex")}`;
const database = `${role}_db`;
const password = "p@ss:w/rd %?#";
let sys: TestSystem;
const admin = postgres(TEST_ADMIN_URL, { max: 1, onnotice: () => {} });

function roleUrl(): string {
  const url = new URL(TEST_ADMIN_URL);
  url.username = role;
  url.password = encodeURIComponent(password);
  url.hostname = "127.0.0.1";
  url.pathname = `/${database}`;
  return url.toString();
}

beforeAll(async () => {
  await admin.unsafe(`create role "${role}" login password '${password.replace(/'/g, "''")}' nosuperuser nocreatedb nocreaterole`);
  await admin.unsafe(`create database "${database}" owner "${role}"`);
  sys = await startSystem({ label: "dbrole", env: { DATABASE_URL: roleUrl() } });
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await admin.unsafe(`drop database if exists "${database}" with (force)`);
  await admin.unsafe(`drop role if exists "${role}"`);
  await admin.end();
});

describe("DATABASE_URL with a password, as a role of its own", () => {
  it("the services connect as that role and own the schemas they migrated", async () => {
    const sessions = await admin<{ usename: string }[]>`select distinct usename from pg_stat_activity where datname = ${database}`;
    expect(sessions.map((s) => s.usename)).toEqual([role]);
    // Schemas are per database: look inside the role's own.
    const inDatabase = new URL(TEST_ADMIN_URL);
    inDatabase.pathname = `/${database}`;
    const db = postgres(inDatabase.toString(), { max: 1, onnotice: () => {} });
    try {
      const owned = await db<
        { nspname: string }[]
      >`select n.nspname from pg_namespace n join pg_roles r on r.oid = n.nspowner where r.rolname = ${role}`;
      expect(owned.map((s) => s.nspname)).toEqual(expect.arrayContaining(["gateway", "rooms", "transcription", "projection", "search"]));
    } finally {
      await db.end();
    }
  });

  it("serves the API: a room created is read back", async () => {
    const alice = sys.client("alice");
    await ok(alice.POST("/v1/rooms", { body: { name: "password-role" } }));
    const rooms = await ok(alice.GET("/v1/rooms"));
    expect(rooms.items.map((r) => r.name)).toContain("password-role");
  });
});
