import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDb, type Sql } from "../src/db";
import { loadMigrations, migrate, MigrationError } from "../src/migrate";
import { createTestDatabase, type TestDatabase } from "../src/testing";

let db: TestDatabase;
let sql: Sql;
let root: string;

function writeMigration(folder: string, file: string, body: string) {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, file), body);
}

beforeAll(async () => {
  db = await createTestDatabase("migrate");
  sql = connectDb(db.url, { schema: "widgets", max: 4 });
  root = mkdtempSync(join(tmpdir(), "scribe-migrations-"));
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await db.drop();
});

describe("migration runner", () => {
  it("applies pending migrations in order into the service schema and records them", async () => {
    writeMigration("widgets", "0001_widgets.sql", "create table widget (id int primary key);");
    writeMigration("widgets", "0002_widget_name.sql", "alter table widget add column name text;");
    const applied = await migrate(sql, { schema: "widgets", migrations: loadMigrations(["widgets"], root) });
    expect(applied).toEqual(["widgets/0001_widgets.sql", "widgets/0002_widget_name.sql"]);
    const cols =
      await sql`select column_name from information_schema.columns where table_schema = 'widgets' and table_name = 'widget' order by ordinal_position`;
    expect(cols.map((c) => c.column_name)).toEqual(["id", "name"]);
  });

  it("is idempotent: a second run applies nothing", async () => {
    const applied = await migrate(sql, { schema: "widgets", migrations: loadMigrations(["widgets"], root) });
    expect(applied).toEqual([]);
    const history = await sql`select name from widgets.schema_migrations order by name`;
    expect(history).toHaveLength(2);
  });

  it("rejects an already-applied migration whose file changed", async () => {
    writeMigration("widgets", "0002_widget_name.sql", "alter table widget add column title text;");
    await expect(migrate(sql, { schema: "widgets", migrations: loadMigrations(["widgets"], root) })).rejects.toThrow(
      /0002_widget_name.sql was changed after it was applied/,
    );
    writeMigration("widgets", "0002_widget_name.sql", "alter table widget add column name text;");
  });

  it("serialises concurrent runners so each migration is applied exactly once", async () => {
    writeMigration("widgets", "0003_gadget.sql", "create table gadget (id int primary key);");
    const others = [1, 2, 3].map(() => connectDb(db.url, { schema: "widgets", max: 1 }));
    const results = await Promise.all(others.map((s) => migrate(s, { schema: "widgets", migrations: loadMigrations(["widgets"], root) })));
    await Promise.all(others.map((s) => s.end({ timeout: 1 })));
    expect(results.flat()).toEqual(["widgets/0003_gadget.sql"]);
  });

  it("rolls back a failing migration completely", async () => {
    writeMigration("widgets", "0004_broken.sql", "create table half_done (id int); select * from no_such_table;");
    await expect(migrate(sql, { schema: "widgets", migrations: loadMigrations(["widgets"], root) })).rejects.toBeInstanceOf(MigrationError);
    const [t] = await sql`select to_regclass('widgets.half_done') as t`;
    expect(t!.t).toBeNull();
  });

  it("refuses files that are not named NNNN_name.sql", () => {
    writeMigration("bad", "1_create.sql", "select 1;");
    expect(() => loadMigrations(["bad"], root)).toThrow(/NNNN_name.sql/);
  });
});
