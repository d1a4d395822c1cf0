// PostgreSQL access: a postgres.js pool bound to one service's schema (search_path), and transactions.
import postgres from "postgres";

export type Sql = postgres.Sql<{}>;
export type Tx = postgres.TransactionSql<{}>;
/** What store functions accept: the pool or an open transaction. */
export type Db = Sql | Tx;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;
export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  return schema;
}

export interface DbOptions {
  /** The service's own schema; unqualified SQL resolves there. */
  schema: string;
  max?: number;
  applicationName?: string;
  /** Session settings of every connection (e.g. planner settings a service's queries need). */
  settings?: Record<string, string>;
}

export function connectDb(url: string, opts: DbOptions): Sql {
  const schema = assertSchemaName(opts.schema);
  return postgres(url, {
    max: opts.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { ...opts.settings, search_path: `${schema},public`, application_name: opts.applicationName ?? `scribe-${schema}` },
  });
}

/** Check the database answers (readiness). */
export async function pingDb(sql: Sql): Promise<void> {
  await sql`select 1`;
}
