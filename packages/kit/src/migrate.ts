// Migration runner: migrations/<service>/NNNN_name.sql applied in order into the service's schema,
// history per schema, a changed applied file is an error, concurrent runners serialise on a lock.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import { assertSchemaName, type Sql } from "./db";

export const MIGRATIONS_ROOT = process.env.MIGRATIONS_DIR ?? fileURLToPath(new URL("../../../migrations/", import.meta.url));

/** Tables every bus-using service needs (outbox, inbox), applied before the service's own. */
export const KIT_MIGRATIONS = "_kit";

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  /** History key, e.g. `rooms/0001_rooms.sql`. */
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationError";
  }
}

export function loadMigrations(folders: string[], root = MIGRATIONS_ROOT): Migration[] {
  const out: Migration[] = [];
  for (const folder of folders) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir).filter((f) => f.endsWith(".sql"));
    const seen = new Map<string, string>();
    for (const file of files) {
      const m = FILE_NAME.exec(file);
      if (!m) throw new MigrationError(`${folder}/${file}: migration files are named NNNN_name.sql`);
      const prior = seen.get(m[1]!);
      if (prior) throw new MigrationError(`${folder}: ${prior} and ${file} share number ${m[1]}`);
      seen.set(m[1]!, file);
    }
    for (const file of files.sort()) {
      const sql = readFileSync(join(dir, file), "utf8");
      out.push({ name: `${folder}/${file}`, sql, checksum: createHash("sha256").update(sql).digest("hex") });
    }
  }
  return out;
}

/**
 * Apply pending migrations into `schema`, all in one transaction under an advisory lock, so two
 * services starting at once cannot both apply, and a failed migration leaves nothing half-done.
 */
export async function migrate(sql: Sql, opts: { schema: string; migrations: Migration[]; log?: Logger }): Promise<string[]> {
  const schema = assertSchemaName(opts.schema);
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`scribe:migrate:${schema}`}))`;
    await tx.unsafe(`create schema if not exists "${schema}"`);
    await tx.unsafe(`set local search_path to "${schema}", public`);
    await tx.unsafe(`create table if not exists schema_migrations (
      name text primary key,
      checksum text not null,
      applied_at timestamptz not null default now()
    )`);
    const rows = await tx<{ name: string; checksum: string }[]>`select name, checksum from schema_migrations`;
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    const done: string[] = [];
    for (const m of opts.migrations) {
      const prior = applied.get(m.name);
      if (prior !== undefined) {
        if (prior !== m.checksum) {
          throw new MigrationError(
            `${schema}: migration ${m.name} was changed after it was applied; migrations are append-only, add a new one`,
          );
        }
        continue;
      }
      try {
        await tx.unsafe(m.sql);
      } catch (e) {
        throw new MigrationError(`${schema}: migration ${m.name} failed: ${(e as Error).message}`);
      }
      await tx`insert into schema_migrations (name, checksum) values (${m.name}, ${m.checksum})`;
      done.push(m.name);
      opts.log?.info({ schema, migration: m.name }, "migration applied");
    }
    return done;
  });
}

/**
 * The migration folders of a service: the kit's tables first, then shared tables it opts into
 * (e.g. `_workflow` for the workflow runner), then its own.
 */
export function serviceMigrations(service: string, opts: { bus?: boolean; root?: string; shared?: readonly string[] } = {}): Migration[] {
  return loadMigrations([...(opts.bus === false ? [] : [KIT_MIGRATIONS]), ...(opts.shared ?? []), service], opts.root);
}
